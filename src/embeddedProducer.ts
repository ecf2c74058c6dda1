// The producer seam as the package exposes it: an embedding program's producer sees a narrow context (accept a
// message, learn its outcome, the config, the clock, the log, stop), never the store or the supervisor. It is
// adapted to the runtime's full producer context here; the runtime's own producers keep that full context.
import type { Config } from './config/types.js';
import type { InboxOutcome } from './domain/inbox.js';
import { DaemonError } from './errors.js';
import type { Logger } from './obs/log.js';
import type { ProducerContext as RuntimeContext, Producer as RuntimeProducer } from './runtime/producer.js';
import type { AcceptInput } from './supervisor/supervisorOptions.js';

/** A message a producer hands the agent: one durable accept. */
export interface ProducerMessage {
  /** The conversation it belongs to. */
  context_id: string;
  text: string;
  /** Who sends it: their quotas, budgets and tool policies apply; null acts for nobody (the operator's reach). */
  principal: string | null;
  /** A second accept with the same key (per principal) writes nothing and returns the first message. */
  dedupe_key?: string;
  /** `timer` for a message your producer makes on a clock; default `a2a_message`, a caller's. */
  kind?: 'a2a_message' | 'timer';
  /** This message's mode (`plan`: propose, do not act); default the conversation's. */
  mode?: 'plan' | 'execute';
}

/** An accepted message, as the store holds it. */
export interface AcceptedMessage {
  /** The message's id (a ULID): pass it to `outcomeOf`. */
  id: string;
  /** False when `dedupe_key` found an earlier message: this is that one. */
  created: boolean;
  status: 'pending' | 'done';
  /** Set once its turn folded back. */
  outcome?: InboxOutcome;
}

/** What an embedding program's producer starts with. */
export interface ProducerContext {
  readonly config: Readonly<Config>;
  /** Durably accepts one message; resolves once it is committed (after the restore, which it waits for). */
  accept(message: ProducerMessage): Promise<AcceptedMessage>;
  /** Resolves with the outcome of an accepted message's turn (`{status, reply, error?}`). */
  outcomeOf(id: string): Promise<InboxOutcome>;
  /** Milliseconds since the epoch, as the agent reads the time. */
  clock(): number;
  readonly log: Logger;
  /** Asks the agent to drain and stop; `reason` goes on `drain.start`. */
  requestStop(reason?: string): void;
  /** Resolves once the restore has queued what was pending from a previous life. */
  readonly restored: Promise<void>;
}

/**
 * A source of messages with a lifecycle, handed to createAgent's `producers`: started after the built-in ones in
 * order, stopped in the reverse order. On a stop every `stopIntake` runs first, then running turns drain, then
 * `stop` runs.
 */
export interface Producer {
  /** Shown in logs (`producer.started`) and errors. */
  readonly name: string;
  start(ctx: ProducerContext): Promise<void> | void;
  /** Optional: stop taking new work (the drain starts next); without it, accepts are refused during the drain. */
  stopIntake?(): Promise<void> | void;
  /** Release everything (listeners, timers); runs after the drain. */
  stop(): Promise<void> | void;
}

const PUBLIC_KINDS: ReadonlySet<unknown> = new Set(['a2a_message', 'timer']);

/**
 * The internal accept's input from a producer's message: only the public fields are copied, so a field the
 * internal accept knows (a task, a parent, another kind) cannot be smuggled in from a plain object.
 */
function acceptInput(message: ProducerMessage): AcceptInput {
  const { context_id, text, principal, dedupe_key, kind, mode } = message;
  if (kind !== undefined && !PUBLIC_KINDS.has(kind)) {
    throw new DaemonError(
      'usage_invalid',
      `producer accept: kind must be 'a2a_message' or 'timer', got ${JSON.stringify(kind)}`,
    );
  }
  return {
    context_id,
    text,
    principal,
    ...(dedupe_key === undefined ? {} : { dedupe_key }),
    ...(kind === undefined ? {} : { kind }),
    ...(mode === undefined ? {} : { mode }),
  };
}

/** The narrow context over the runtime's; `outcomeOf` waits for the supervisor, known once the runtime is up. */
function narrowContext(ctx: RuntimeContext, outcomeOf: (id: string) => Promise<InboxOutcome>): ProducerContext {
  return {
    config: ctx.config,
    accept: async (message) => {
      const { record, created } = await ctx.accept(acceptInput(message));
      return { id: record.id, created, status: record.status, ...(record.outcome ? { outcome: record.outcome } : {}) };
    },
    outcomeOf,
    clock: () => ctx.clock(),
    log: ctx.log,
    requestStop: (reason) => ctx.requestStop(reason),
    restored: ctx.restored,
  };
}

/** `producer` as the runtime registers it: it is started with the narrow context. */
export function embedProducer(producer: Producer, outcomeOf: (id: string) => Promise<InboxOutcome>): RuntimeProducer {
  return {
    name: producer.name,
    start: (ctx) => producer.start(narrowContext(ctx, outcomeOf)),
    ...(producer.stopIntake ? { stopIntake: () => producer.stopIntake?.() } : {}),
    stop: () => producer.stop(),
  };
}
