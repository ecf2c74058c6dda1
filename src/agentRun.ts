// agent.run(): one message accepted durably and its turn followed — progress from the run tap, questions and
// checklist changes from the run desk, the end from the committed fold. agent.ts wires it to the runtime.
import type { InboxOutcome } from './domain/inbox.js';
import type { RunEvent, RunResult } from './domain/runEvent.js';
import { DaemonError } from './errors.js';
import type { Usage } from './protocol/messages.js';
import { RunEvents, type RunHandle } from './runHandle.js';
import type { RunDesk } from './runQuestions.js';
import type { Runtime } from './runtime/startRuntime.js';

/** How agent.run() sends its message. */
export interface RunOptions {
  /** The conversation the message belongs to (default `root`). */
  conversation?: string;
  /** Who sends it: its quotas, budgets and tool policies apply (default `operator`). */
  principal?: string;
  /** Aborting it cancels the run, as `cancel()` does. */
  signal?: AbortSignal;
  /** Sets the conversation's mode for this message and the ones after it (`plan`: propose, do not act). */
  mode?: 'plan' | 'execute';
}

/** Accepts one message and follows its turn: progress from the run tap, the end from the committed fold. */
export async function startRun(runtime: Runtime, desk: RunDesk, input: string, o: RunOptions): Promise<RunHandle> {
  const { supervisor } = runtime;
  const conversation = o.conversation ?? 'root';
  const principal = o.principal ?? 'operator';
  if (o.signal?.aborted) throw new DaemonError('usage_invalid', 'agent.run: the signal was aborted before the run');
  const events = new RunEvents();
  const seen: Seen = { turnId: null, usage: null, id: null };
  // The tap is watched once the run id is known: a worker's progress arrives on I/O, after this continuation.
  const stopCommitted = supervisor.steering.feed.onCommitted((turn) => {
    if (turn.event.id === seen.id && turn.result) seen.usage = turn.result.usage;
  });
  // Questions and plan changes are known by the message's key: its turn may launch before accept() returns.
  const early = heldUntilAccepted(events);
  const key = desk.expect(early.push);
  const stop = () => {
    stopCommitted();
    desk.ended(key, seen.id);
  };
  let accepted: Awaited<ReturnType<typeof supervisor.accept>>;
  try {
    // The mode rides on the message itself: a new or evicted conversation has no resident mode to set first.
    const mode = o.mode === undefined ? {} : { mode: o.mode };
    accepted = await supervisor.accept({ context_id: conversation, text: input, principal, dedupe_key: key, ...mode });
  } catch (err) {
    stop();
    throw err;
  }
  const { record } = accepted;
  seen.id = record.id;
  desk.opened(key, record.id);
  const cancel = () => supervisor.cancelEvent(record.id, 'cancelled by the embedding program');
  if (o.mode !== undefined) keepMode(runtime, { conversation, principal, mode: o.mode }, cancel, stop);
  events.push({ type: 'accepted', runId: record.id, conversation });
  early.open();
  const stopTap = supervisor.runTap.watch(record.id, (event) => {
    if ('turnId' in event) seen.turnId = event.turnId;
    if (event.type === 'round') seen.usage = event.usage;
    events.push(event);
  });
  o.signal?.addEventListener('abort', cancel, { once: true });
  // An abort while accept was awaited fired no listener: it is honoured here.
  if (o.signal?.aborted) cancel();
  const result = supervisor
    .outcomeOf(record.id)
    .then((outcome) => {
      const done = runResult(outcome, seen);
      events.push({ type: 'done', runId: record.id, result: done });
      return done;
    })
    .finally(() => {
      stopTap();
      stop();
      o.signal?.removeEventListener('abort', cancel);
      events.end();
    });
  return { id: record.id, result, events, cancel };
}

interface Seen {
  turnId: string | null;
  usage: Usage | null;
  id: string | null;
}

/** The desk's events for the run, held until `accepted` is in the log (it comes first). */
function heldUntilAccepted(events: RunEvents) {
  let held: RunEvent[] | null = [];
  return {
    push: (event: RunEvent): void => {
      if (held) held.push(event);
      else events.push(event);
    },
    open: (): void => {
      for (const event of held ?? []) events.push(event);
      held = null;
    },
  };
}

/**
 * Sets the conversation's mode for the messages after this one (this one carries it already). A refusal (another
 * principal's conversation) cancels the accepted message and throws, as a refused run.
 */
function keepMode(
  runtime: Runtime,
  run: { conversation: string; principal: string; mode: 'plan' | 'execute' },
  cancel: () => void,
  stop: () => void,
): void {
  try {
    runtime.supervisor.steering.setMode(run.conversation, run.principal, run.mode);
  } catch (err) {
    cancel();
    stop();
    const why = err instanceof Error ? err.message : String(err);
    throw new DaemonError('usage_invalid', `agent.run: mode for conversation "${run.conversation}": ${why}`);
  }
}

function runResult(outcome: InboxOutcome, seen: Seen): RunResult {
  return {
    status: outcome.status,
    reply: outcome.reply,
    usage: seen.usage ?? { input_tokens: 0, output_tokens: 0 },
    turnId: seen.turnId,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.error_kind ? { errorKind: outcome.error_kind } : {}),
  };
}
