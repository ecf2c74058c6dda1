// The InternalToolHost a turn's internal tools run against: the supervisor's state and capabilities, seen from
// that turn (its conversation, its principal, its hop depth). Built once per turn, at spawn; holds no state.
import type { Config } from '../config/types.js';
import type { Compactor, CompactReport, CompactRequest } from '../context/compactor.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { Conversation } from '../domain/conversation.js';
import { humanChannelOf } from '../domain/humanChannel.js';
import type { ThinkJob } from '../domain/job.js';
import type { Plan } from '../domain/plan.js';
import { actsForAll } from '../domain/principal.js';
import type { Logger } from '../obs/log.js';
import type { Staging } from '../prep/staging.js';
import type { Steering } from '../steering/steering.js';
import type { Store } from '../store/store.js';
import type { SubagentDeskPort } from '../subagents/subagentHost.js';
import type { TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ThinkChildren } from '../supervisor/thinkChildren.js';
import type { LiveTurn } from '../supervisor/turnWorkers.js';
import type { InternalToolHost, ToolResult } from './internalTools.js';
import type { SkillHost, SteeringHost, WorkPortName, WorkPorts } from './toolOutcome.js';
import { whenTurnEnds } from './turnEnd.js';

/** What the supervisor lends to internal tools. */
export interface HostCapabilities {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  conversation(id: string): Conversation;
  setPlan(conv: Conversation, plan: Plan | null): void;
  /** The producers tools start work through (message.send, side.start); absent, those tools are not available. */
  ports?: WorkPorts;
  think(job: ThinkJob): Promise<ToolResult>;
  /** Compacts a conversation now (the `context.compact` tool). */
  compact(ctx: string, req: CompactRequest): Promise<CompactReport>;
  /** Registers a check run after every reactor step; returns the unregister function. */
  watch(check: () => void): () => void;
  /** Asks for a reactor step soon (after which every watch re-checks). */
  wake(): void;
  /** The instance's status; with a principal, only that principal's work. */
  status(principal?: string): Record<string, unknown>;
  /** A2A tasks (a person to ask); absent without a listener. */
  tasks?: TaskHooks;
  /** Goals and side tasks. */
  steering?: Steering;
  /** skills.*; absent without skill sources. */
  skills?: SkillHost;
  /** subagent.* (the subagent desk). */
  subagents?: SubagentDeskPort;
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
  /** Schedules a reactor step. */
  wake(): void;
  ports: WorkPorts | undefined;
  /** The instance's status; with a principal, only that principal's work. */
  status(principal?: string): Record<string, unknown>;
  subagents?: SubagentDeskPort;
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
    setPlan: (conv, plan) => conversations.setPlan(conv, plan),
    ...(parts.ports ? { ports: parts.ports } : {}),
    think: (job) => parts.thinks.run(job),
    ...(skills ? { skills } : {}),
    compact: (ctx, req) => parts.compactor.compact(ctx, req),
    watch: (check) => {
      watchers.add(check);
      return () => watchers.delete(check);
    },
    wake: parts.wake,
    ...(parts.tasks ? { tasks: parts.tasks } : {}),
    steering: parts.steering,
    status: parts.status,
    ...(parts.subagents ? { subagents: parts.subagents } : {}),
  };
}

/** What a turn's host is built from: who it is and where its waits are cleaned up. */
export type HostTurn = Pick<LiveTurn, 'node' | 'job' | 'turnId' | 'end'>;

/** goal.* and side.* as the turn's tools see them: refusals become strings, the judge dies with the turn. */
function steeringFor(steering: Steering, ports: WorkPorts | undefined, turn: HostTurn): SteeringHost {
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
    sideStart: (caller, instruction) => {
      const start = ports?.port('side_task') ?? null;
      if (start === null) return '"side.start" is not available here: no producer starts side tasks';
      const opened = steering.openSide(caller);
      if (typeof opened === 'string') return opened;
      start({ caller, conversation: opened.conversation, instruction, depth: opened.depth });
      return { conversation: opened.conversation };
    },
    sidePromote: (caller, id) => steering.sidePromote(caller, id),
  };
}

/** The host for one turn, built when its worker is spawned and used for every tool request of that turn. */
export function buildToolHost(caps: HostCapabilities, turn: HostTurn): InternalToolHost {
  const { config, log } = caps;
  let thinks = 0;
  return {
    now: caps.now,
    instance: config.agent.name,
    memory: caps.store.memory,
    conversation: caps.conversation,
    setPlan: caps.setPlan,
    planMaxItems: config.context.plan.max_items,
    maxMessageDepth: config.limits.max_message_depth,
    askHumanFallback: config.agent.ask_human_fallback,
    humanChannel: humanChannelOf(caps.tasks, turn.job.event),
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
    ...(caps.steering ? { steering: steeringFor(caps.steering, caps.ports, turn) } : {}),
    onResultSchemaMismatch: (tool, explain) => log.warn('tool.result.schema', { tool, ctx: turn.job.ctx, explain }),
    port: <K extends WorkPortName>(name: K) => caps.ports?.port(name) ?? null,
    wake: caps.wake,
    status: () => caps.status(statusScope(turn.job.principal)),
    ...(caps.skills ? { skills: caps.skills } : {}),
    ...(caps.subagents ? { subagents: caps.subagents.forTurn((cleanup) => whenTurnEnds(turn.end, cleanup)) } : {}),
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
function watchUntil(caps: HostCapabilities, turn: HostTurn, check: () => boolean, timeoutAt: number) {
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
    // A turn that ended while the await read the store already ran its cleanups: this wait ends at once.
    whenTurnEnds(turn.end, () => finish(false));
  });
}

/** Whose work a turn's `status` tool may see: everything for the operator (or no principal), else its own. */
function statusScope(principal: string | null): string | undefined {
  return actsForAll(principal) ? undefined : principal;
}
