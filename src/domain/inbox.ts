// Inbox events: what a producer hands the runtime (one durable accept each), and how each one ended.
// Plain data only: no I/O, no imports from store/ or supervisor/.
import type { FinishStatus, TurnErrorKind, TurnStatus } from '../protocol/status.js';

/** Every producer's kind; `timer`, `subagent` and `workflow_step` are reserved for the producers still to come. */
export const INBOX_KINDS = [
  'a2a_message',
  'startup_prompt',
  'agent_message',
  'goal_continuation',
  'side_task',
  'wake_note',
  'timer',
  'subagent',
  'workflow_step',
] as const;

export type InboxKind = (typeof INBOX_KINDS)[number];

/** What every event carries: a message for a conversation's next turn. */
export interface MessagePayload {
  context_id: string;
  text: string;
  msg_depth?: number;
  /** The A2A task this message answers (enough to rebuild the task record if a crash lost it). */
  task?: { id: string; context_id: string };
  /** The mode captured when the message was accepted; absent = execute. */
  mode?: 'plan';
  /** A workflow step's own turn settings, kept with the event so a replayed accept builds the same turn. */
  step?: StepTurnOptions;
}

/**
 * How a workflow step's turn differs from a conversation's (producers reference §2.8): `think` runs without tools
 * and answers one JSON value; `agent` keeps the root prompt and tools unless these fields narrow them.
 */
export interface StepTurnOptions {
  kind: 'agent' | 'think';
  /** Replaces the system prompt (think: the reasoning-module prompt; agent: the root prompt). */
  system?: string;
  /** System lines before the user message (a think step's `reads`, `<path> = <value>`). */
  context?: string[];
  /** Skills loaded on the step's conversation before its turn (their bodies go in its system prompt). */
  skills?: string[];
  /** An agent step's `context` seeds, read before the conversation (its user message). */
  seeds?: Array<{ role: 'system' | 'user' | 'assistant'; text: string }>;
  /** The answer is parsed and checked against it, re-asked on a miss (turn reference §12). */
  output_schema?: Record<string, unknown>;
  /** Model calls this turn may make (0 = the step limit). */
  max_rounds?: number;
  max_steps?: number;
  max_tokens?: number;
  /** Tool-name patterns (`*` suffix): the turn is offered, and may call, only tools that match one. */
  tools?: string[];
  /** MCP servers the turn reaches: tools routed to any other server are left out. */
  servers?: string[];
}

/** A `message.send` delivery: the sending conversation (its run's end may leave a wake note there). */
export interface AgentMessagePayload extends MessagePayload {
  from: string;
}

/** A goal's next turn: the `created` stamp of the goal it serves (a replaced goal's continuation is dropped). */
export interface GoalContinuationPayload extends MessagePayload {
  /** Absent only on events stored before kinds existed. */
  goal_created?: number;
}

/** A side task's instruction: the conversation it was forked from. */
export interface SideTaskPayload extends MessagePayload {
  parent: string;
}

/** A turn a finished run starts in its sender (`on_workflow_finished: think`): the conversation whose run ended. */
export interface WakeNotePayload extends MessagePayload {
  about: string;
}

interface EventOf<K extends InboxKind, P extends MessagePayload> {
  /** A ULID kept across restarts. */
  id: string;
  kind: K;
  /** Orders replay. */
  ts: number;
  principal: string | null;
  payload: P;
  /** Optional dedupe key: a second accept with the same key is refused (used for the startup prompt). */
  dedupe_key?: string;
}

/** An accepted event, discriminated by the producer that made it. */
export type InboxEvent =
  | EventOf<'a2a_message' | 'startup_prompt' | 'timer' | 'subagent' | 'workflow_step', MessagePayload>
  | EventOf<'agent_message', AgentMessagePayload>
  | EventOf<'goal_continuation', GoalContinuationPayload>
  | EventOf<'side_task', SideTaskPayload>
  | EventOf<'wake_note', WakeNotePayload>;

/** What the store knows about an inbox event. Done events keep their outcome so a restart can report it. */
export type InboxRecord = InboxEvent & {
  status: 'pending' | 'done';
  outcome?: InboxOutcome;
};

export interface InboxOutcome {
  status: TurnStatus;
  reply: string;
  error?: string;
  /** Where `error` came from; records stored before kinds existed lack it (read them with `errorKindOf`). */
  error_kind?: TurnErrorKind;
  /** The status the turn's `finish` call gave (its turn `completed`). */
  finish_status?: FinishStatus;
  /** The turn called `finish {exit: true}`: kept with the outcome so a fold retried after a store error still asks. */
  finish_exit?: true;
}

/** The startup prompt's dedupe keys begin with this (they name the prompt's hash). */
export const STARTUP_PROMPT_KEY = 'prompt:';

/**
 * An event as stored, in today's shape. Events stored before kinds existed are all `a2a_message`, told apart by
 * payload fields (`origin: 'goal'`, `from`) or the startup prompt's dedupe key; those are mapped to their kind.
 * A side task or a wake turn stored then carries no mark and stays `a2a_message` (it replays the same).
 */
export function readInboxEvent<E extends InboxEvent>(stored: E): E {
  if (stored.kind !== 'a2a_message') return stored;
  const { kind: _legacy, payload: raw, ...rest } = stored;
  const { origin, from, goal_created, ...payload } = raw as MessagePayload & LegacyFields;
  if (origin === 'goal') {
    const goal = goal_created === undefined ? {} : { goal_created };
    return { ...rest, kind: 'goal_continuation', payload: { ...payload, ...goal } } as E;
  }
  if (typeof from === 'string') return { ...rest, kind: 'agent_message', payload: { ...payload, from } } as E;
  if (stored.dedupe_key?.startsWith(STARTUP_PROMPT_KEY)) return { ...rest, kind: 'startup_prompt', payload } as E;
  return stored;
}

/** Payload fields of events stored before kinds existed. */
interface LegacyFields {
  origin?: 'goal';
  from?: string;
  goal_created?: number;
}
