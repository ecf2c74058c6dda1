// Frame types between supervisor and turn worker: one union per direction (reference §1.3-1.4).
// Both sides import this module; a new frame type without a handler fails to compile (see `FrameHandlers`).
import type { Msg, ToolDef, Usage } from './messages.js';
import type { FinishStatus, TurnErrorKind, TurnStatus } from './status.js';

/** Bumped when a frame's shape changes incompatibly; carried in the spawn frame. */
export const PROTOCOL_VERSION = 1;

/** Largest frame either side accepts: 16 MiB. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The wire dialects: the config's choices and the spec's field both come from this list. */
export const DIALECTS = ['openai', 'anthropic', 'bedrock'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** A model family whose request rules differ: `claude` follows Anthropic's inside Bedrock (reference §5.3). */
export const MODEL_FAMILIES = ['claude', 'other'] as const;
export type ModelFamily = (typeof MODEL_FAMILIES)[number];

/** What a Bedrock request is SigV4-signed with; travels only in the spawn frame, never into logs. */
export interface AwsAuth {
  region: string;
  access_key_id: string;
  secret_access_key: string;
  session_token: string | null;
}

/** How the worker dials the model for this turn. Credentials travel only here, never into logs. */
export interface IntelligenceSpec {
  /** Failover order; each a base URL ending in /v1 or a full .../chat/completions URL. */
  endpoints: string[];
  token: string | null;
  model: string;
  dialect: Dialect;
  headers: Array<[string, string]>;
  /** Per-request timeout of one model call (ms); the turn deadline still bounds it. */
  timeout_ms: number;
  /** The declared model's family; absent or null ⇒ told from the model id (reference §5.3). */
  family?: ModelFamily | null;
  /** The declared model's kind. Default chat. */
  kind?: ModelKind;
  /** A reasoning model's effort: OpenAI `reasoning_effort`, Anthropic a thinking budget. */
  reasoning?: { effort: 'low' | 'medium' | 'high' } | null;
  /** `prompt`: never ask the provider for a response format; the schema goes in the prompt only. */
  structured_output?: 'native' | 'prompt';
  /** OpenAI `prompt_cache_key`: absent or `auto` ⇒ only when every endpoint is api.openai.com. */
  prompt_cache_key?: 'auto' | 'on' | 'off';
  /** Bedrock: the region and keys requests are SigV4-signed with (resolved when the config compiled). */
  aws?: AwsAuth | null;
  /** The model tried after every endpoint of this one failed (its own spec; reasoning parts never go to it). */
  fallback?: IntelligenceSpec | null;
}

export type ModelKind = 'chat' | 'reasoning' | 'decision';

/** Per-turn limits; `deadline_ms` is relative to the worker's start (floored at 1 s by the supervisor). */
export interface TurnLimits {
  max_steps: number;
  max_tokens: number;
  deadline_ms: number;
}

/** The immutable description of one turn (reference §1.4 TurnSpec). */
export interface TurnSpec {
  kind: 'turn' | 'think';
  system: string;
  /** The transcript slice: summary and plan as system messages first, then the messages verbatim. */
  messages: Msg[];
  tools: ToolDef[];
  /**
   * Withheld internal tool families (tools/onDemand.ts): family → definitions the worker adds to `tools` for the
   * rest of the turn when the model calls `tools.more {family}`. Absent: `tools` is the whole offer.
   */
  more?: Record<string, ToolDef[]>;
  /** Tool names that round-trip to the supervisor. */
  internal: string[];
  /** Tool name → [server, wire tool name]; the worker dials these servers itself. */
  mcp_routes: Record<string, [string, string]>;
  /** The cap on one MCP call (ms); it is also clamped to what remains of the deadline. Default 600 000. */
  mcp_call_timeout_ms?: number;
  /** Code tools the worker runs itself (from `code_tools_module`). */
  code_tools?: string[];
  /** Code tools a permission rule could match: the worker asks the supervisor (`check_only`) before each call. */
  gated?: string[];
  output_schema?: Record<string, unknown>;
  /** 0 ⇒ use limits.max_steps. */
  max_rounds: number;
  budget_admission: boolean;
  /** `<instance>/<conversation>`; idempotency keys are `<prefix>#<turn_id>.<n>`. */
  idempotency_prefix: string;
  /**
   * `<prefix>#<inbox event>.`: MCP calls are keyed `<journal_scope><n>` instead, the same in every run of the
   * message's turn, and answered from the tool journal when that run already completed them (§4.4).
   */
  journal_scope?: string;
  tool_meta?: Record<string, unknown>;
  temperature?: number;
  /** 0 ⇒ 4096. */
  max_tokens_per_call: number;
  /** Unique across restarts. */
  turn_id: string;
  /** `plan`: only `read_only` tools run; any other call returns a tool error (seed 003 plan mode). */
  mode?: 'plan' | 'execute';
  /** The tools plan mode lets run. */
  read_only?: string[];
  /**
   * Set when the worker runs a subagent (reference §1.1): its handle, whether it stays for injected runs, and the
   * number `n` of this payload's run (turn id `<handle>.run<n>`); a warm session's later runs count on from it.
   */
  subagent?: { handle: string; warm: boolean; run: number };
  /**
   * A subagent's `tools` grant (patterns): a call to a tool outside `tools` is refused as "not in this subagent's
   * allowed tools" instead of "no such tool" (reference §1.4).
   */
  allowed_tools?: string[];
}

export interface Telemetry {
  instance: string;
  agent_path: string;
  log_level: 'debug' | 'info' | 'warn' | 'error';
  log_content: boolean;
  /** Set while tracing is on (reference §3.4): the turn's span as a W3C traceparent and where spans go. */
  trace?: { traceparent: string; endpoint: string };
}

/** How to reach one MCP server. Credentials (headers, env) travel only here and in config, never into logs. */
export type McpServerSpec =
  | {
      name: string;
      transport: 'stdio';
      command: string;
      args: string[];
      /** The complete environment the server process gets (the configured env over a safe inherited base). */
      env: Record<string, string>;
      cwd: string | null;
    }
  | { name: string; transport: 'http'; url: string; headers: Record<string, string> };

/** The first frame a worker reads: everything it needs, and nothing it must ask for. */
export interface SpawnPayload {
  version: number;
  intelligence: IntelligenceSpec;
  /** The servers this turn's plan routes MCP tools to; the worker connects to exactly these, before any model call. */
  mcp_servers: McpServerSpec[];
  /** An ES module the worker imports for code tools (its `tools` export); null when the turn has none. */
  code_tools_module: string | null;
  limits: TurnLimits;
  telemetry: Telemetry;
  turn: TurnSpec;
  /**
   * Every secret value the supervisor's config knows, so the worker redacts them from what it sends out too
   * (obs/redactor.ts). Added by the spawn itself; never logged or stored.
   */
  redact?: string[];
  /**
   * The worker may serve another turn after this one: it clears the turn, reports `idle` and reads the next spawn
   * frame. Absent or false: it exits after the turn (`agent.worker_max_turns: 1`, or its last turn).
   */
  reuse?: boolean;
}

/** What a worker reports at the end of its turn (reference §1.4 TurnResult). */
export interface TurnResult {
  status: TurnStatus;
  /** The transcript delta, in order; every tool call id in it has a tool result. */
  messages: Msg[];
  text?: string;
  value?: unknown;
  usage: Usage;
  rounds: number;
  tool_calls: number;
  error?: string;
  /** Where `error` came from; absent in results from before kinds existed (see `errorKindOf`). */
  error_kind?: TurnErrorKind;
  finish?: FinishArgs;
}

/** Arguments of the `finish` tool as the model passed them. */
export interface FinishArgs {
  status?: FinishStatus;
  output?: unknown;
  reason?: string;
  exit?: boolean;
}

/**
 * Supervisor → worker. `ping` may also reach a spare before its `spawn` frame (the spare answers it and keeps
 * waiting); every other frame comes after `spawn`.
 */
export type DownFrame =
  | ({ type: 'spawn' } & SpawnPayload)
  | { type: 'ping'; seq: number }
  | { type: 'cancel'; reason: string }
  | { type: 'tool_result'; id: number; result: unknown; is_error: boolean }
  | {
      type: 'budget_grant';
      id: number;
      ok: boolean;
      wait_ms: number;
      model?: string;
      reason?: string;
      /** A no that is a refusal (the turn ends `refused`), not an exhausted window (`exhausted_tokens`). */
      refused?: boolean;
    }
  /** A warm subagent's next message: one more run over the same transcript (reference §1.8). */
  | { type: 'inject'; message: string }
  /** Suspend (`pause`) or go on (`resume`) at the next run boundary; a cancel still wins. */
  | { type: 'pause' }
  | { type: 'resume' };

/** Progress event names a turn worker reports (reference §15). */
/** Coarse activity (think, round, tool) and the feed's body text and tool cards (text, tool_done). */
export type ProgressEvent = 'turn.think' | 'turn.round' | 'turn.tool' | 'turn.text' | 'turn.tool_done';

/**
 * A long call the worker is inside, reported on `pong` so the supervisor's progress timeout spares it: a model
 * call, a tool call (MCP, code, or an internal tool the supervisor may park), a budget wait, the startup
 * (MCP connects, code tools import), or a warm subagent idle between runs. Absent: the worker is between calls and should be making progress.
 */
export type BusyKind = 'model' | 'tool' | 'budget_wait' | 'startup' | 'idle';

/** Worker → supervisor. */
export type UpFrame =
  | { type: 'ready' }
  /** Answers `ping {seq}`; `busy`: the long call it is inside, if any (liveness, reference §1.6). */
  | { type: 'pong'; seq: number; busy?: BusyKind }
  | { type: 'event'; event: ProgressEvent; fields: Record<string, unknown> }
  | ({ type: 'usage' } & Usage)
  | { type: 'failed'; error: string; error_kind?: TurnErrorKind }
  /**
   * `index`: the call's 0-based position across the whole turn (idempotency keys for supervisor-run calls).
   * `check_only`: only the permission check (a gated code tool); the answer is `allowed` or the refusal.
   */
  | { type: 'tool_request'; id: number; name: string; args: unknown; index?: number; check_only?: boolean }
  | { type: 'budget_request'; id: number; estimate: number }
  /** The tool journal (interfaces reference §4.4): answered by `tool_result` with the entry or null. */
  | { type: 'journal_lookup'; id: number; key: string; args_hash: string }
  /** A completed MCP call, recorded so a rerun of the same message answers it from the journal. */
  | { type: 'journal_record'; key: string; args_hash: string; result: unknown; is_error: boolean }
  | { type: 'turn_done'; turn: TurnResult }
  /** After `turn_done` of a `reuse` spawn: the turn is cleared and the worker waits for a spawn; `rss` in bytes. */
  | { type: 'idle'; rss: number };

export type FrameOf<U extends { type: string }, K extends U['type']> = Extract<U, { type: K }>;

/** A handler for every frame type of a union: adding a frame type without a handler is a compile error. */
export type FrameHandlers<U extends { type: string }> = {
  [K in U['type']]: (frame: FrameOf<U, K>) => void;
};

/** Calls the handler for `frame.type`. */
export function dispatchFrame<U extends { type: string }>(handlers: FrameHandlers<U>, frame: U): void {
  const handler = handlers[frame.type as U['type']] as (f: U) => void;
  handler(frame);
}
