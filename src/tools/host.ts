// The InternalToolHost a turn's internal tools run against: the supervisor's state and capabilities, seen from
// that turn (its conversation, its principal, its hop depth). Built per tool request; holds no state of its own.
import type { Config } from '../config/types.js';
import type { Compactor, CompactReport, CompactRequest } from '../context/compactor.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { Conversation } from '../domain/conversation.js';
import type { Logger } from '../obs/log.js';
import type { Staging } from '../prep/staging.js';
import type { Steering } from '../steering/steering.js';
import type { Accepted, Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { AcceptInput, TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ThinkChildren, ThinkJob } from '../supervisor/thinkChildren.js';
import type { LiveTurn } from '../supervisor/turnWorkers.js';
import type { InternalToolHost, ToolResult } from './internalTools.js';
import type { SkillHost, SteeringHost } from './toolOutcome.js';

/** What the supervisor lends to internal tools. */
export interface HostCapabilities {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  conversation(id: string): Conversation;
  markDirty(id: string): void;
  accept(input: AcceptInput): Promise<Accepted>;
  think(job: ThinkJob): Promise<ToolResult>;
  /** Compacts a conversation now (the `context.compact` tool). */
  compact(ctx: string, req: CompactRequest): Promise<CompactReport>;
  /** Registers a check run after every reactor step; returns the unregister function. */
  watch(check: () => void): () => void;
  status(): Record<string, unknown>;
  /** A2A tasks (a person to ask); absent without a listener. */
  tasks?: TaskHooks;
  /** Goals and side tasks. */
  steering?: Steering;
  /** skills.*; absent without skill sources. */
  skills?: SkillHost;
}

/** The supervisor's parts internal tools reach through. */
export interface HostParts {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  tasks: TaskHooks | undefined;
  conversations: ConversationBook;
  thinks: ThinkChildren;
  staging: Staging;
  compactor: Compactor;
  steering: Steering;
  /** Checks re-run after every reactor step (await). */
  watchers: Set<() => void>;
  accept(input: AcceptInput): Promise<Accepted>;
  status(): Record<string, unknown>;
}

/** The capabilities internal tools reach through (think children, delivery, status, watches, skills, goals). */
export function hostCapabilities(parts: HostParts): HostCapabilities {
  const { conversations, watchers } = parts;
  const skills = parts.staging.skillHost((id) => conversations.open(id, null));
  return {
    config: parts.config,
    store: parts.store,
    log: parts.log,
    now: parts.now,
    conversation: (id) => conversations.open(id, null),
    markDirty: (id) => conversations.markDirty(id),
    accept: parts.accept,
    think: (job) => parts.thinks.run(job),
    ...(skills ? { skills } : {}),
    compact: (ctx, req) => parts.compactor.compact(ctx, req),
    watch: (check) => {
      watchers.add(check);
      return () => watchers.delete(check);
    },
    ...(parts.tasks ? { tasks: parts.tasks } : {}),
    steering: parts.steering,
    status: parts.status,
  };
}

/** goal.* and side.* as the turn's tools see them: refusals become strings, the judge dies with the turn. */
function steeringFor(steering: Steering, turn: LiveTurn): SteeringHost {
  const refusal = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  return {
    goalSet: (caller, objective, budget) => {
      try {
        return steering.goalSet(caller.conversation, caller.principal, objective, budget);
      } catch (err) {
        return refusal(err);
      }
    },
    goalGet: (caller) => steering.goalGet(caller.conversation, null),
    goalClear: (caller) => steering.goalClear(caller.conversation, null),
    goalComplete: (caller, evidence) => steering.goalComplete(caller, evidence, turn),
    sideStart: (caller, instruction) => steering.sideStart(caller, instruction),
    sidePromote: (caller, id) => steering.sidePromote(caller, id),
  };
}

export function buildToolHost(caps: HostCapabilities, turn: LiveTurn): InternalToolHost {
  const { config, log } = caps;
  let thinks = 0;
  return {
    now: caps.now,
    instance: config.agent.name,
    memory: caps.store.memory,
    conversation: caps.conversation,
    markDirty: caps.markDirty,
    planMaxItems: config.context.plan.max_items,
    maxMessageDepth: config.limits.max_message_depth,
    askHumanFallback: config.agent.ask_human_fallback,
    humanChannel: caps.tasks?.humanChannel ?? false,
    askHuman: (req) => {
      const ask = { eventId: turn.job.event.id, question: req.question, timeoutAt: req.timeoutAt };
      const hooks = caps.tasks;
      if (!hooks) return Promise.resolve({ result: 'ask_human: no person is reachable', is_error: true });
      return hooks.askHuman(req.schema ? { ...ask, schema: req.schema } : ask);
    },
    onPlanUpdated: (ctx, op, progress) => {
      log.info('plan.updated', { ctx, op, progress });
      caps.tasks?.onEngineEvent(turn.job.event.id, 'checklist', { ctx, op, progress });
    },
    onMemoryChanged: (op, key) => caps.tasks?.onEngineEvent(turn.job.event.id, 'memory', { op, key }),
    ...(caps.steering ? { steering: steeringFor(caps.steering, turn) } : {}),
    onResultSchemaMismatch: (tool, explain) => log.warn('tool.result.schema', { tool, ctx: turn.job.ctx, explain }),
    deliver: async (req) => {
      const conversation = req.to === 'new' ? `conv-${newUlid(caps.now()).toLowerCase()}` : req.to;
      const { record } = await caps.accept({
        kind: 'agent_message',
        context_id: conversation,
        text: req.text,
        principal: req.caller.principal,
        msg_depth: req.depth,
        from: req.caller.conversation,
      });
      log.info('message.delivered', {
        from: req.caller.conversation,
        to: conversation,
        depth: req.depth,
        inbox_event: record.id,
      });
      return { ok: true, conversation, depth: req.depth };
    },
    status: () => caps.status(),
    ...(caps.skills ? { skills: caps.skills } : {}),
    think: (req) =>
      caps.think({
        purpose: req.purpose,
        ctx: req.caller.conversation,
        parentNode: turn.node,
        system: req.system,
        messages: req.messages.map((m) => ({ role: m.role, text: m.text, ts: caps.now() })),
        ...(req.schema ? { schema: req.schema } : {}),
        turnId: `${turn.turnId}.think-${++thinks}`,
      }),
    compact: async (req) => {
      const opts = { parentNode: turn.node, ...req.options };
      const report = await caps.compact(req.caller.conversation, opts);
      const fields = { ctx: req.caller.conversation, ...report };
      if (report.folded > 0 || report.note === undefined)
        caps.tasks?.onEngineEvent(turn.job.event.id, 'compaction', fields);
      return { result: report, is_error: false };
    },
    watch: (check, timeoutAt) => watchUntil(caps, turn, check, timeoutAt),
  };
}

/** Resolves true once `check()` holds after a reactor step, false at `timeoutAt` or when the turn ends. */
function watchUntil(caps: HostCapabilities, turn: LiveTurn, check: () => boolean, timeoutAt: number) {
  return new Promise<boolean>((resolve) => {
    const finish = (satisfied: boolean): void => {
      clearTimeout(timer);
      unregister();
      resolve(satisfied);
    };
    const unregister = caps.watch(() => {
      if (check()) finish(true);
    });
    const timer = setTimeout(() => finish(false), Math.max(0, timeoutAt - caps.now()));
    turn.cleanups.push(() => finish(false));
  });
}
