// The compiled configuration: fully defaulted, typed, frozen. Durations are milliseconds.
// Produced only by compileConfig (config/compile.ts); nothing downstream reads raw YAML or process.env.
import type { WorkflowDef } from '../domain/workflow.js';
import type { Dialect, ModelFamily } from '../protocol/frames.js';
import type { A2aConfig } from './a2aTypes.js';
import type { OnDemandFamily } from './onDemandFamilies.js';
import type { SearchConfig } from './searchKeys.js';
import type { SubagentsConfig } from './subagentTypes.js';

export type { A2aConfig, A2aPeerConfig, A2aPrincipalConfig, PrincipalQuotas } from './a2aTypes.js';
export type { ConfigFlags, ConfigSources } from './sourceTypes.js';
export type { SubagentsConfig, SubagentTemplate, TemplateParam } from './subagentTypes.js';

export type PreflightMode = 'auto' | 'always' | 'never';

/** `all` (default), `none`, or a list of names (internal: tools or families like `memory`; mcp: tools or servers). */
export type ToolSelection = 'all' | 'none' | readonly string[];

/** What an MCP server's tools may touch, as the subagent trifecta gate reads it (producers reference §1.4). */
export type McpServerTag = 'private_data' | 'untrusted_content' | 'external_comms';

/** One configured MCP server: Streamable HTTP (`url`) or a stdio command; `tags` only when configured. */
export type McpServerConfig = (
  | { url: string; headers: Record<string, string>; token: string | null }
  | { command: string; args: string[]; env: Record<string, string>; cwd: string | null }
) & { tags?: McpServerTag[] };

/** A permission rule (security.policies): the first rule whose every given condition holds decides. */
export interface PolicyRule {
  /** Named in events and in the tool error a deny returns; default `policies[<index>]`. */
  name: string;
  match: {
    /** A tool-name pattern: `*`, an exact name, or `prefix*`. */
    tool?: string;
    /** The MCP server the tool comes from. */
    server?: string;
    /** All of these tags must be on the tool (untrusted_input | sensitive | egress). */
    tags?: readonly string[];
    /** Caller kinds: root | conversation (more with workflows and subagents). */
    caller?: readonly string[];
    /** A principal pattern (`operator`, `user:*`, …). */
    principal?: string;
    /** Argument paths (dotted) that must equal these values. */
    args?: Readonly<Record<string, unknown>>;
  };
  action: 'allow' | 'deny' | 'ask';
  /** For `ask`: what happens when nobody answers in time. Default deny. */
  on_timeout: 'allow' | 'deny';
  /** For `ask`: how long to wait for a person (ms). Default 5 minutes. */
  timeout: number;
}
export type StoreKind = 'sqlite' | 'memory' | 'postgres';

/** The unit a budget window is aligned to. */
export type WindowUnit = 'second' | 'minute' | 'hour' | 'day' | 'week';

/** One budget window (reference §10.2): a fixed bucket of its unit; day and week buckets start at `reset`. */
export interface BudgetWindow {
  per: WindowUnit;
  /** Tokens per bucket; null = not capped. */
  tokens: number | null;
  /** Admitted turn dispatches per bucket; null = not capped. */
  requests: number | null;
  /** `HH:MM` or `HH:MMZ` (always UTC) for day and week windows; null = 00:00. */
  reset: string | null;
}

export type BudgetTactic = 'wait' | 'slow' | 'degrade' | 'refuse' | 'fail';

/** A budget (`intelligence.budget`, `agent.conversation_budget`, a principal's `quotas.budget`). */
export interface BudgetConfig {
  windows: readonly BudgetWindow[];
  /** Tokens ever; exhausting it always fails. Null = no lifetime cap. */
  lifetime_tokens: number | null;
  /** What happens when a window runs out. Default wait. */
  on_exhausted: BudgetTactic;
  /** `slow`: the fraction of each window's tokens to pace admissions to (0.01–1). Default 0.5. */
  slow: { factor: number };
  /** `degrade`: the model (alias or wire id) admitted turns run on. */
  degrade: { model: string | null };
}

export interface AgentConfig {
  /** Instance id; a segment of idempotency keys. Default "agentd". */
  name: string;
  /** Standing policy rendered under "## Instruction". Default "". */
  instruction: string;
  /** Project instruction files (e.g. AGENTS.md), read at start into "## Instruction" (absolute paths). Default []. */
  instruction_files: readonly string[];
  /** Startup message into conversation root as the operator (`--prompt`). Default null. */
  prompt: string | null;
  /** When a message is triaged before its turn (reference §6.1). Default "auto". */
  preflight: PreflightMode;
  /** At most this many conversation turns run at once. Default 4. */
  max_parallel_turns: number;
  /** Spare worker processes kept started so a turn skips spawn and import time. Default 1; 0 disables. */
  warm_workers: number;
  /** Turns one worker process serves before it is replaced; 1 = a process per turn (issue 14). Default 100. */
  worker_max_turns: number;
  /** Resident bytes past which a worker is replaced after its turn. Default 256 MiB. */
  worker_max_rss: number;
  /** Which tools root and conversation turns get (default all, all, all); `on_demand`: internal families shown only
   * after `tools.more {family}` (tools/onDemand.ts), [] = all up front. */
  tools: { internal: ToolSelection; mcp: ToolSelection; code: ToolSelection; on_demand: OnDemandFamily[] };
  /** ask_human with no person reachable: `fail` (default, an error now) or `wait` (park until its timeout). */
  ask_human_fallback: 'fail' | 'wait';
  /** Which happenings leave a wake note (seed 000). Default [a2a_message, human_reply, subagent_result,
   * workflow_failed]. */
  wake_on: WakeEvent[];
  /** What a finished background run does in the conversation that started it. Default ignore. */
  on_workflow_finished: 'ignore' | 'note' | 'think';
  /** A budget every non-root conversation has for itself (scope `conversation:<ctx>`). Default null. */
  conversation_budget: BudgetConfig | null;
}

/** The happenings `agent.wake_on` names (reference §3.2). */
export const WAKE_EVENTS = [
  'a2a_message',
  'human_reply',
  'subagent_result',
  'workflow_finished',
  'workflow_failed',
  'instruction_updated',
  'budget_resumed',
] as const;
export type WakeEvent = (typeof WAKE_EVENTS)[number];

export interface IntelligenceConfig {
  /** Failover order. Default [] (no model: a job that needs one fails with an intel error). */
  endpoints: string[];
  /** Bearer token; from `{{secret:NAME}}`. Default null. */
  token: string | null;
  /** Wire model id. Default "gpt-4o-mini". */
  model: string;
  /** Default "openai". */
  dialect: Dialect;
  headers: Record<string, string>;
  /** Bedrock's AWS credentials and region; filled from the environment or a profile when the config compiles. */
  auth: AuthConfig | null;
  /** Per-request timeout (ms) for one model call; the turn deadline still bounds it. Default 120 000. */
  timeout: number;
  /** `native` (default): ask the provider to hold answers to their schema; `prompt`: the schema in the prompt only. */
  structured_output: 'native' | 'prompt';
  /** OpenAI's `prompt_cache_key`: `auto` (default) sends it only to api.openai.com; other hosts may refuse it. */
  prompt_cache_key: PromptCacheKeyMode;
  /** Named connections a declared model may use instead of the top-level endpoints. Default {}. */
  providers: Record<string, ProviderConfig>;
  /** Declared models by alias. Default {}. */
  models: Record<string, ModelDecl>;
  /** Which declared model runs which job; each defaults to `turn`, and `turn` to `intelligence.model`. */
  roles: RolesConfig;
  /** Route alias (a declared model) → the criterion preflight reads. Default {}. */
  routes: Record<string, string>;
  /** The instance budget (scope `instance`). Default null: no budget, no admission checks. */
  budget: BudgetConfig | null;
}

export type PromptCacheKeyMode = 'auto' | 'on' | 'off';

export interface ProviderConfig {
  endpoints: string[];
  dialect: Dialect;
  token: string | null;
  headers: Record<string, string>;
  structured_output: 'native' | 'prompt';
  prompt_cache_key: PromptCacheKeyMode;
  /** Bedrock's AWS credentials and region (see IntelligenceConfig.auth). Absent when not declared. */
  auth?: AuthConfig | null;
}

/**
 * `auth: {kind: aws, …}` (reference §5.1: bedrock requires `auth.kind: aws`). As declared every field may be
 * null; on a bedrock connection the compiled config holds the resolved region and keys.
 */
export interface AuthConfig {
  kind: 'aws';
  region: string | null;
  profile: string | null;
  access_key_id: string | null;
  secret_access_key: string | null;
  session_token: string | null;
}

export interface ModelDecl {
  /** The wire model id. */
  model: string;
  /** Default chat. */
  kind: 'chat' | 'reasoning' | 'decision';
  /** `claude`: Anthropic's request rules on Bedrock whatever the id says; null = told from the id. Default null. */
  family: ModelFamily | null;
  /** A provider name; null = the top-level intelligence connection. */
  provider: string | null;
  reasoning: { effort: 'low' | 'medium' | 'high' } | null;
  /** Context window in tokens; null = guessed from the name. */
  window: number | null;
  /** Another declared alias tried when this model fails over entirely. */
  fallback: string | null;
}

export interface RolesConfig {
  /** null = `intelligence.model` (which may itself be a declared alias). */
  turn: string | null;
  preflight: string | null;
  /** Below this confidence a preflight verdict (or route) is not used. Default null (any). */
  preflight_confidence: number | null;
  compaction: string | null;
  think: string | null;
  decide: string | null;
}

export interface LimitsConfig {
  run: {
    /** Rounds per turn. Default 500. */
    steps: number;
    /** Reported tokens per turn. Default 2 000 000. */
    tokens: number;
    /** Whole-run deadline (ms), floored at 1 000. Default 3 600 000. */
    deadline: number;
  };
  /** Hop cap for message deliveries. Default 8. */
  max_message_depth: number;
  /** Caps on `subagent.run` (reference §1.13). */
  subagents: {
    /** Delegation depth a subagent may not reach. Default 3. */
    depth: number;
    /** Live subagents at once. Default 8. */
    breadth: number;
    /** Live plus recently ended subagents (the last hour). Default 64. */
    total: number;
    /** Spawn rate `<burst>/<period>`. Default "8/2s". */
    rate: string;
    /** Live subagents one caller (a turn, or a subagent) may hold; 0 = breadth − 1, at least 1. Default 0. */
    per_caller: number;
  };
  workflow: {
    /** Most instances one nested workflow step runs at once (reference §2.13). Default 8. */
    fan_out: number;
  };
  /** A workflow step output larger than this (serialized, bytes) is kept as an artifact (§2.5). Default 65 536. */
  inline_max_bytes: number;
}

export interface ContextConfig {
  /** Default 0.7, in (0, 1]. */
  compact_at: number;
  /** Default 12. */
  keep_last: number;
  /** Default null (guessed from the model name). */
  model_window: number | null;
  plan: {
    /** Default 32. */
    max_items: number;
  };
  /** The system prompt template (reference §8.1); null = the built-in (`agentd --context-template`). */
  template: string | null;
  summarize: {
    /** Replaces the summarizer's guidance (never its schema). Default null (built in). */
    prompt: string | null;
  };
}

export interface KnowledgeConfig {
  auto_context: {
    /** `turn`: search for every message and put the hits in the prompt. Default "never". */
    on: 'never' | 'turn';
    /** Default 5. */
    top_k: number;
    /** The knowledge block's cap in bytes. Default 16 384. */
    max_bytes: number;
  };
  /** An MCP server whose `knowledge.search` (or `search`) tool answers knowledge.search. Default null. */
  server: string | null;
}

/** The MCP tool that answers a mapping-only tool (tools.overrides). */
export interface ToolOverride {
  server: string;
  /** The server's own name for the tool. */
  tool: string;
}

export interface ToolsConfig {
  /** Mapping-only tool name (knowledge.search) → the MCP tool that answers it. Default {}. */
  overrides: Record<string, ToolOverride>;
}

export interface SkillsConfig {
  /** MCP servers whose prompts and resources are skills. Default []. */
  sources: readonly string[];
  /** Skills loaded on one conversation at most. Default 8. */
  max_loaded: number;
  /** A loaded skill's body is cut to this many bytes. Default 32 768. */
  max_bytes: number;
  /** How a message references a skill. Default "@skill:". */
  reference_prefix: string;
}

export interface StoreConfig {
  /** Default "sqlite". */
  kind: StoreKind;
  /** A directory; default $AGENTD_STATE_DIR, else ./.agentd (resolved to an absolute path). */
  path: string;
  /** Idle conversations in memory at most (least recently used leave first). Default 500 and 64 MiB. */
  conversation_cache: { entries: number; bytes: number };
  /** Bytes free on the store's filesystem under which turns shed (reference §4); 0 = never. Default 256 MB. */
  min_free: number;
  /** The sqlite file's check at open, before any write: quick_check (default), integrity_check, or none. */
  integrity_check: 'quick' | 'full' | 'off';
  /** postgres: the database URL (a secret). Default null; required for kind postgres. */
  url: string | null;
  /** postgres: pooled connections at most. Default 10. */
  pool_size: number;
  /** postgres: a conversation lease's life (ms), renewed every third of it. Default 15 000. */
  lease_ttl: number;
  /** Tool journal entries of finished turns older than this (ms) are pruned. Default 7 days. */ journal_retain: number;
}

export interface LifecycleConfig {
  /** How long a drain waits for in-flight turns (ms). Default 25 000. */
  drain_timeout: number;
  /** Job or daemon shape (producers reference §3.1): auto | idle | drained. Default auto. */
  run_until: 'auto' | 'idle' | 'drained';
  /** How long an idle job-shaped instance with recurring starts waits before it exits (ms). Default 5 000. */
  idle_grace: number;
  /** A child that answers nothing this long is unhealthy (ms; reference §1.6 AGENTD_PONG_TIMEOUT_MS). Default 10 000. */
  pong_timeout: number;
  /** A running child with no progress this long outside a long call is unhealthy (ms). Default 120 000. */
  progress_timeout: number;
}

export interface ObservabilityConfig {
  /** Default "info". */
  log_level: 'debug' | 'info' | 'warn' | 'error';
  /** Adds message text and tool arguments to events. Default false. */
  log_content: boolean;
  /** `HOST:PORT` serving /metrics, /healthz and /readyz (port 0 = a free port). Default null: none. */
  metrics_addr: string | null;
  /** The OTLP/HTTP traces URL, used as is; default from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _ENDPOINT, else null. */
  otlp_endpoint: string | null;
}

export interface McpConfig {
  /** Server name → how to reach it. Default {}. */
  servers: Record<string, McpServerConfig>;
  /** The cap on one MCP call (ms), also clamped to what remains of the turn's deadline. Default 600 000. */
  call_timeout: number;
}

export interface SecurityConfig {
  /** Ordered; first match wins; no match allows. Default []. */
  policies: readonly PolicyRule[];
  /** Tools plan mode may run besides read-only internal tools and MCP tools annotated readOnlyHint. Default []. */
  read_only_tools: readonly string[];
  /** True: subagent.run may grant servers whose tags form the lethal trifecta. Default false. */
  allow_trifecta: boolean;
}

export interface Config {
  agent: AgentConfig;
  a2a: A2aConfig;
  mcp: McpConfig;
  security: SecurityConfig;
  intelligence: IntelligenceConfig;
  limits: LimitsConfig;
  subagents: SubagentsConfig;
  context: ContextConfig;
  knowledge: KnowledgeConfig;
  search: SearchConfig;
  skills: SkillsConfig;
  tools: ToolsConfig;
  store: StoreConfig;
  lifecycle: LifecycleConfig;
  observability: ObservabilityConfig;
  /** Workflow definitions, loaded and validated (producers reference §2.1). Default []. */
  workflows: readonly WorkflowDef[];
}
