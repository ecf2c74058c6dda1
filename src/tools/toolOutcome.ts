// The values internal tools exchange with the supervisor: the caller, the host they may touch, the outcome.
// Types and a few constructors only; shared by internalTools.ts (the runner) and the handler bodies.
import type { Conversation } from '../domain/conversation.js';
import type { Goal } from '../domain/goal.js';
import type { Plan } from '../domain/plan.js';
import type { MemoryPort } from '../store/store.js';
import type { SubagentHost } from '../subagents/subagentHost.js';

/** Who called: the conversation plan.* addresses, the acting principal, the turn, the message's hop depth. */
export interface ToolCaller {
  conversation: string;
  principal: string | null;
  turnId: string;
  /** Hop depth of the message the turn serves: a person's message is 0 (reference §3.3). */
  depth: number;
  kind: 'root' | 'conversation';
  /** `<inbox event>#<call index>`: the same call of a turn replayed after a crash has the same key. */
  call?: string;
  /** Set when a subagent calls: its handle and depth (its own subagents are one deeper). */
  subagent?: { handle: string; depth: number };
  /** Set when a workflow step calls (a `subagent` step): the run and step it acts for. */
  workflow?: { run: string; step: string };
}

/** A think child's request (reference §13): no tools, a structured answer, bound to the caller's conversation. */
export interface ThinkRequest {
  purpose: 'think' | 'decide';
  system: string;
  messages: Array<{ role: 'system' | 'user'; text: string }>;
  /** The answer's JSON Schema; absent = any JSON value. */
  schema?: Record<string, unknown>;
  caller: ToolCaller;
}

/** message.send's delivery: `to` is "root", "new" or a conversation id, as the model gave it. */
export interface DeliveryRequest {
  to: string;
  text: string;
  /** The hop depth the delivered message carries (caller depth + 1, already checked against the limit). */
  depth: number;
  caller: ToolCaller;
  /** The inbox dedupe key (a workflow step's): a delivery re-run after a crash finds the first one. */
  dedupe?: string;
}

export type DeliveryReceipt = { ok: true; conversation: string; depth: number } | { ok: false; error: string };

/** side.start's work, once the steering desk has opened the side conversation: its instruction to accept. */
export interface SideTaskRequest {
  caller: ToolCaller;
  /** The side conversation, already opened and seeded. */
  conversation: string;
  instruction: string;
  depth: number;
}

/**
 * The handlers through which tools that start work reach the producer that accepts it, by port name
 * (message.send → `deliver`, side.start → `side_task`). A new producer a tool reaches adds its port from its own
 * file: `declare module '../tools/toolOutcome.js' { interface WorkPortMap { name(req: R): Promise<A> } }`.
 */
export interface WorkPortMap {
  /** Accepts an `agent_message`; durable when it resolves ok. */
  deliver(req: DeliveryRequest): Promise<DeliveryReceipt>;
  /** Accepts a side task's instruction (logged; the tool has answered already). */
  side_task(req: SideTaskRequest): void;
}

export type WorkPortName = keyof WorkPortMap;

/** Where a tool looks a port up: the handler plugged in, or null when no producer offers it here. */
export interface WorkPorts {
  port<K extends WorkPortName>(name: K): WorkPortMap[K] | null;
}

/** context.compact's request: the tool's optional target and keep_last. */
export interface CompactionAsk {
  caller: ToolCaller;
  options: { targetTokens?: number; keepLast?: number };
}

/** ask_human's question for a person, already trimmed and cut. */
export interface HumanQuestion {
  question: string;
  schema?: Record<string, unknown>;
  /** When nobody has answered by then, the answer is `{reply: null, timed_out: true}`. */
  timeoutAt: number;
  caller: ToolCaller;
}

/**
 * What internal tools may touch; the supervisor implements it over its state and store. An optional capability
 * that is absent makes its tool answer `"<name>" is not available here`.
 */
export interface InternalToolHost {
  now(): number;
  /** The instance name (think's system prompt). */
  instance: string;
  /** The store's memory port (its change notification feeds `await`). */
  memory: MemoryPort;
  /** The caller's conversation (for plan.*). */
  conversation(id: string): Conversation;
  /** Replaces the conversation's plan (null clears it); the conversation book checkpoints it. */
  setPlan(conv: Conversation, plan: Plan | null): void;
  planMaxItems: number;
  /** limits.max_message_depth: message.send refuses a delivery deeper than this. */
  maxMessageDepth: number;
  /** agent.ask_human_fallback: what ask_human does when no person is reachable. */
  askHumanFallback: 'fail' | 'wait';
  /** Whether a person can be asked (false until the A2A listener provides a channel). */
  humanChannel: boolean;
  /** The producer a tool starts work through (`deliver`, `side_task`, …); null: none is plugged in here. */
  port?<K extends WorkPortName>(name: K): WorkPortMap[K] | null;
  /** The runtime status the `status` tool reports. */
  status?(caller: ToolCaller): Record<string, unknown>;
  /** Runs a think child and resolves with its value (or an error result `think <status>: <error>`). */
  think?(req: ThinkRequest): Promise<ToolResult>;
  /** Compacts the caller's conversation; resolves `{version, est_tokens, folded, note?}`. */
  compact?(req: CompactionAsk): Promise<ToolResult>;
  /** Resolves true as soon as `check()` holds after a runtime state change, false at `timeoutAt`. */
  watch?(check: () => boolean, timeoutAt: number): Promise<boolean>;
  /** Asks the supervisor to re-check every watch soon (a watched memory key changed). */
  wake?(): void;
  /** Asks a person over the human channel; resolves `{reply, timed_out}` (used only when humanChannel is true). */
  askHuman?(req: HumanQuestion): Promise<ToolResult>;
  /** Skills on the caller's conversation (skills.*); absent without skill sources. */
  skills?: SkillHost;
  /** For the `plan.updated {ctx, op, progress}` event. */
  onPlanUpdated?(ctx: string, op: string, progress: string): void;
  /** Goals and side tasks (the supervisor's steering desk). */
  steering?: SteeringHost;
  /** A memory notice for the live feed: a key was set or deleted. */
  onMemoryChanged?(op: 'set' | 'delete', key: string): void;
  /** For the `tool.result.schema` event: a success did not match its output schema. */
  onResultSchemaMismatch?(tool: string, explain: string): void;
  /** subagent.* (the supervisor's subagent desk). */
  subagents?: SubagentHost;
}

/** What goal.* and side.* reach in the supervisor; a refusal is a string the tool returns as its error. */
export interface SteeringHost {
  goalSet(caller: ToolCaller, objective: string, tokenBudget: number | null): Goal | string;
  goalGet(caller: ToolCaller): Goal | null;
  goalClear(caller: ToolCaller): boolean;
  /** Resolves with the judge's verdict as the tool's result. */
  goalComplete(caller: ToolCaller, evidence: string): Promise<ToolResult>;
  sideStart(caller: ToolCaller, instruction: string): { conversation: string } | string;
  sidePromote(caller: ToolCaller, conversation: string): Promise<string | null>;
}

/** The skill catalogue and a conversation's loaded skills, as skills.* see them. */
export interface SkillHost {
  list(ctx: string): { skills: Array<{ name: string; description: string }>; loaded: string[] };
  /** Resolves `{loaded, name, hash, body}` or an error result (unknown skill, over skills.max_loaded). */
  load(ctx: string, name: string): Promise<ToolResult>;
  unload(ctx: string, name: string): boolean;
}

export interface ToolResult {
  result: unknown;
  is_error: boolean;
}

/**
 * ready: answer now · park: a durable timer, answered by `complete` at wakeAt · defer: the supervisor answers
 * when `promise` settles (a think child, a watch, a person); the runner makes it never reject.
 */
export type ToolOutcome =
  | ({ kind: 'ready' } & ToolResult)
  | { kind: 'park'; wakeAt: number; complete: (now: number) => ToolResult }
  | { kind: 'defer'; promise: Promise<ToolResult> };

/** A ready error result carrying `message` as its content. */
export function toolError(message: string): ToolOutcome {
  return { kind: 'ready', result: message, is_error: true };
}

/** A ready success carrying `result`. */
export function toolOk(result: unknown): ToolOutcome {
  return { kind: 'ready', result, is_error: false };
}

/** A result the supervisor produces later. */
export function toolDefer(promise: Promise<ToolResult>): ToolOutcome {
  return { kind: 'defer', promise };
}

/** The refusal of a tool whose host capability is absent. */
export function toolUnavailable(name: string): ToolOutcome {
  return toolError(`"${name}" is not available here`);
}
