// The key table: every config key path with its value kind, default and one-line doc (reference §19).
// Typed against Config so a key missing from the table, or a default of the wrong type, does not compile.
import { DIALECTS } from '../protocol/frames.js';
import { A2A_DEFAULTS, DEFAULT_MAX_BODY_BYTES, listenKind, principalsKind, tlsKind } from './a2aKeys.js';
import { budgetKind } from './budgetKeys.js';
import { byteSizeKind } from './byteSize.js';
import {
  boolKind,
  durationKind,
  enumKind,
  enumListKind,
  fractionKind,
  intKind,
  nullableIntKind,
  nullableStringKind,
  stringKind,
  stringMapKind,
  toolSelectionKind,
  urlListKind,
  type ValueKind,
} from './kinds.js';
import { mcpServersKind } from './mcpServers.js';
import {
  authKind,
  confidenceKind,
  modelsKind,
  PROMPT_CACHE_KEY,
  providersKind,
  roleKind,
  routesKind,
  STRUCTURED_OUTPUT,
} from './modelDecls.js';
import { OBSERVABILITY_KEYS } from './observabilityKeys.js';
import { DEFAULT_ON_DEMAND, ON_DEMAND_FAMILIES } from './onDemandFamilies.js';
import { PAIRING_KEYS } from './pairingKeys.js';
import { peersKind } from './peerKeys.js';
import { policiesKind } from './policyRules.js';
import { PRODUCER_KEYS } from './producerKeys.js';
import { overridesKind, stringListKind, templateKind } from './promptKeys.js';
import { RETENTION_KEYS } from './retentionKeys.js';
import { SEARCH_KEYS } from './searchKeys.js';
import { STORE_KEYS } from './storeKeyTable.js';

export { DEFAULT_STORE_PATH } from './storeKeyTable.js';

import { type Config, WAKE_EVENTS } from './types.js';

/** Dotted paths of Config's leaves; lists and free-key maps are leaves. */
type PathsOf<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends readonly unknown[]
    ? `${P}${K}`
    : T[K] extends object
      ? string extends keyof T[K]
        ? `${P}${K}`
        : PathsOf<T[K], `${P}${K}.`>
      : `${P}${K}`;
}[keyof T & string];

type ValueAt<T, P extends string> = P extends `${infer H}.${infer R}`
  ? H extends keyof T
    ? ValueAt<T[H], R>
    : never
  : P extends keyof T
    ? T[P]
    : never;

export type ConfigKeyPath = PathsOf<Config>;

export interface KeySpec<V> {
  kind: ValueKind<V>;
  default: V;
  doc: string;
  /** The value is a credential: registered for log redaction even when written in plain text. */
  sensitive?: boolean;
  /** A scalar key a file may also write as a mapping: each sub-key sets the key it names (`{model, confidence}`). */
  longForm?: LongForm;
}

export interface LongForm {
  keys: Readonly<Record<string, ConfigKeyPath>>;
  /** Added to the problem for an unknown sub-key. */
  hint?: string;
}

/** `intelligence.roles.<role>`: a model alias, or `{model}` (preflight: `{model, confidence}`). */
function roleSpec(role: 'turn' | 'compaction' | 'think' | 'decide', doc: string): KeySpec<string | null> {
  const path: ConfigKeyPath = `intelligence.roles.${role}`;
  return {
    kind: roleKind(),
    default: null,
    doc,
    longForm: { keys: { model: path }, hint: 'only preflight takes a confidence' },
  };
}

export type KeyTable = { [P in ConfigKeyPath]: KeySpec<ValueAt<Config, P>> };

export const KEYS: KeyTable = {
  'agent.name': { kind: stringKind(), default: 'agentd', doc: 'Instance id; a segment of idempotency keys.' },
  'agent.instruction': { kind: stringKind(), default: '', doc: 'Standing policy rendered under "## Instruction".' },
  'agent.instruction_files': {
    kind: stringListKind('file paths'),
    default: [],
    doc: 'Project instruction files (AGENTS.md) read at start into "## Instruction".',
  },
  'agent.prompt': { kind: nullableStringKind(), default: null, doc: 'Startup message into the root (--prompt).' },
  'agent.preflight': { kind: enumKind(['auto', 'always', 'never']), default: 'auto', doc: 'When to run preflight.' },
  'agent.max_parallel_turns': { kind: intKind(1), default: 4, doc: 'Conversation turns running at once.' },
  'agent.warm_workers': { kind: intKind(0), default: 1, doc: 'Spare turn workers kept started (daemons).' },
  'agent.worker_max_turns': {
    kind: intKind(1),
    default: 100,
    doc: 'Turns one worker process serves before it is replaced; 1 = a fresh process per turn.',
  },
  'agent.worker_max_rss': {
    kind: byteSizeKind(),
    default: 268_435_456,
    doc: 'Resident memory past which a worker is replaced after its turn.',
  },
  'agent.tools.internal': { kind: toolSelectionKind(), default: 'all', doc: 'Internal tools or families granted.' },
  'agent.tools.mcp': { kind: toolSelectionKind(), default: 'all', doc: 'MCP tools or servers granted.' },
  'agent.tools.code': { kind: toolSelectionKind(), default: 'all', doc: 'Code tools granted.' },
  'agent.tools.on_demand': {
    kind: enumListKind(ON_DEMAND_FAMILIES),
    default: [...DEFAULT_ON_DEMAND],
    doc: 'Internal families shown only after the model calls tools.more; [] shows every family up front.',
  },
  'agent.ask_human_fallback': {
    kind: enumKind(['fail', 'wait']),
    default: 'fail',
    doc: 'ask_human with nobody reachable: fail now, or wait.',
  },
  'agent.wake_on': {
    kind: enumListKind(WAKE_EVENTS),
    default: ['a2a_message', 'human_reply', 'subagent_result', 'workflow_failed'],
    doc: 'Happenings that leave a [note] the next turn reads (see docs/guide/daemon-and-a2a.md, Wake notes).',
  },
  'agent.on_workflow_finished': {
    kind: enumKind(['ignore', 'note', 'think']),
    default: 'ignore',
    doc: 'A finished message.send run: ignore, note the sender, or think (a turn at once).',
  },
  'agent.conversation_budget': {
    kind: budgetKind(),
    default: null,
    doc: 'A budget each non-root conversation has for itself: {windows, lifetime_tokens, on_exhausted, …}.',
  },
  'mcp.servers': {
    kind: mcpServersKind(),
    default: {},
    doc: 'MCP servers by name: {url, …} or {command, …} (--mcp); `tags:` (private_data, untrusted_content, external_comms) mark a server for the lethal-trifecta gate of subagent.run.',
  },
  'mcp.call_timeout': { kind: durationKind(100), default: 600_000, doc: 'Cap on one MCP call (also the deadline).' },
  'security.policies': { kind: policiesKind(), default: [], doc: 'Permission rules; first match wins, none allows.' },
  'security.allow_trifecta': {
    kind: boolKind(),
    default: false,
    doc: 'true: subagents may get MCP servers tagged private_data + untrusted_content + external_comms.',
  },
  'security.read_only_tools': {
    kind: stringListKind('tool names'),
    default: [],
    doc: 'Tools plan mode may run besides read-only internal and readOnlyHint MCP tools.',
  },
  'intelligence.endpoints': { kind: urlListKind(), default: [], doc: 'Model endpoints in failover order.' },
  'intelligence.token': {
    kind: nullableStringKind(),
    default: null,
    doc: 'Bearer token; use {{secret:NAME}}.',
    sensitive: true,
  },
  'intelligence.model': { kind: stringKind(), default: 'gpt-4o-mini', doc: 'Wire model id (--model).' },
  'intelligence.dialect': {
    kind: enumKind(DIALECTS),
    default: 'openai',
    doc: 'Wire dialect: openai, anthropic or bedrock (Converse, SigV4-signed; see auth).',
  },
  'intelligence.auth': {
    kind: authKind(),
    default: null,
    doc: 'Bedrock: {kind: aws, region, profile, access_key_id, secret_access_key, session_token}; else the AWS env.',
  },
  'intelligence.headers': {
    kind: stringMapKind(),
    default: {},
    doc: 'Extra HTTP headers on model requests (credential-named values are redacted from events).',
    sensitive: true,
  },
  'intelligence.timeout': { kind: durationKind(), default: 120_000, doc: 'Per-request timeout of one model call.' },
  'intelligence.structured_output': {
    kind: enumKind(STRUCTURED_OUTPUT),
    default: 'native',
    doc: 'Structured answers: native (provider response formats) or prompt (schema in the prompt only).',
  },
  'intelligence.prompt_cache_key': {
    kind: enumKind(PROMPT_CACHE_KEY),
    default: 'auto',
    doc: 'OpenAI prompt_cache_key per conversation: auto (only to api.openai.com), on, or off.',
  },
  'intelligence.providers': {
    kind: providersKind(),
    default: {},
    doc: 'Named connections: {endpoints, dialect, token, headers, structured_output, prompt_cache_key, auth}.',
  },
  'intelligence.models': {
    kind: modelsKind(),
    default: {},
    doc: 'Declared models by alias: {model, kind, provider, reasoning, window, fallback}.',
  },
  'intelligence.roles.turn': roleSpec('turn', 'Model alias for turns; unset = intelligence.model.'),
  'intelligence.roles.preflight': {
    kind: roleKind(),
    default: null,
    doc: 'Model alias for preflight, or {model, confidence}; unset = the turn model.',
    longForm: {
      keys: { model: 'intelligence.roles.preflight', confidence: 'intelligence.roles.preflight_confidence' },
    },
  },
  'intelligence.roles.preflight_confidence': {
    kind: confidenceKind(),
    default: null,
    doc: 'Below this confidence a preflight verdict or route is not used; null = any.',
  },
  'intelligence.roles.compaction': roleSpec('compaction', 'Model alias for compaction; unset = the turn model.'),
  'intelligence.roles.think': roleSpec('think', 'Model alias for the think tool; unset = the turn model.'),
  'intelligence.roles.decide': roleSpec('decide', 'Model alias for the decide tool; unset = the turn model.'),
  'intelligence.routes': {
    kind: routesKind(),
    default: {},
    doc: 'Route alias (a chat or reasoning model) → the criterion preflight chooses it by.',
  },
  'intelligence.budget': {
    kind: budgetKind(),
    default: null,
    doc: 'Instance budget: {windows: [{per, tokens, requests, reset}], lifetime_tokens, on_exhausted, slow, degrade}.',
  },
  'limits.run.steps': { kind: intKind(1), default: 500, doc: 'Rounds per turn.' },
  'limits.run.tokens': { kind: intKind(0), default: 2_000_000, doc: 'Reported tokens per turn; 0 = unlimited.' },
  'limits.run.deadline': { kind: durationKind(1_000), default: 3_600_000, doc: 'Whole-run deadline (--deadline).' },
  'limits.max_message_depth': { kind: intKind(1), default: 8, doc: 'Hop cap for message deliveries.' },
  ...PRODUCER_KEYS,
  'context.compact_at': { kind: fractionKind(0, 1), default: 0.7, doc: 'Window fraction that triggers compaction.' },
  'context.keep_last': { kind: intKind(0), default: 12, doc: 'Messages compaction always keeps.' },
  'context.model_window': { kind: nullableIntKind(1), default: null, doc: 'Context window; null = guessed.' },
  'context.plan.max_items': { kind: intKind(1), default: 32, doc: 'Most items a plan holds.' },
  'context.template': { kind: templateKind(), default: null, doc: 'System prompt template; null = the built-in.' },
  'knowledge.auto_context.on': {
    kind: enumKind(['never', 'turn']),
    default: 'never',
    doc: 'turn: search for each message and add the hits to the prompt.',
  },
  'knowledge.auto_context.top_k': { kind: intKind(1), default: 5, doc: 'Hits asked for per message.' },
  'knowledge.auto_context.max_bytes': { kind: intKind(1), default: 16_384, doc: 'Cap of the knowledge block.' },
  'knowledge.server': {
    kind: nullableStringKind(),
    default: null,
    doc: 'MCP server whose knowledge.search (or search) tool answers knowledge.search.',
  },
  'tools.overrides': {
    kind: overridesKind(),
    default: {},
    doc: 'Mapping-only tool (knowledge.search) → {server, tool}: the MCP tool that answers it.',
  },
  ...SEARCH_KEYS,
  'skills.sources': {
    kind: stringListKind('MCP server names'),
    default: [],
    doc: 'MCP servers whose prompts and resources are skills.',
  },
  'skills.max_loaded': { kind: intKind(1), default: 8, doc: 'Skills loaded on one conversation at most.' },
  'skills.max_bytes': { kind: intKind(1), default: 32_768, doc: 'A loaded skill body is cut to this many bytes.' },
  'skills.reference_prefix': { kind: stringKind(), default: '@skill:', doc: 'How a message references a skill.' },
  'context.summarize.prompt': {
    kind: nullableStringKind(),
    default: null,
    doc: "Replaces the compaction summarizer's guidance (the schema stays); null = built in.",
  },
  ...STORE_KEYS,
  'lifecycle.drain_timeout': { kind: durationKind(), default: 25_000, doc: 'How long a drain waits for turns.' },
  'lifecycle.run_until': {
    kind: enumKind(['auto', 'idle', 'drained']),
    default: 'auto',
    doc: 'auto: a daemon iff a listener or a recurring start node; idle: exit when idle; drained: run until a drain.',
  },
  'lifecycle.idle_grace': { kind: durationKind(), default: 5_000, doc: 'How long idle a job with triggers waits.' },
  'lifecycle.pong_timeout': {
    kind: durationKind(0, 150),
    default: 10_000,
    doc: 'A child (turn or think worker, spare) silent this long is killed and its turn fails; pinged every third of it.',
  },
  'lifecycle.progress_timeout': {
    kind: durationKind(0, 150),
    default: 120_000,
    doc: 'A running child with no progress this long, outside a model, tool or budget call, is killed.',
  },
  ...OBSERVABILITY_KEYS,
  'a2a.listen': {
    kind: listenKind(),
    default: null,
    doc: 'A2A listener URL (http://127.0.0.1:8420; port 0 = a free port); null = none.',
  },
  'a2a.tls': { kind: tlsKind(), default: null, doc: 'Certificate and key files of an https listener.' },
  'a2a.principals': {
    kind: principalsKind(),
    default: [],
    doc: 'Callers, matched in order: {id, role, match: {bearer} | {any: true}, grants, quotas}.',
  },
  'a2a.max_body_bytes': {
    kind: intKind(1),
    default: DEFAULT_MAX_BODY_BYTES,
    doc: 'Largest request body accepted (bytes); larger gets HTTP 413.',
  },
  'a2a.max_connections': {
    kind: intKind(1),
    default: A2A_DEFAULTS.max_connections,
    doc: 'Open connections at most; past it a new one evicts the oldest idle connection, or is closed at once.',
  },
  'a2a.header_timeout': {
    kind: durationKind(0, 100),
    default: A2A_DEFAULTS.header_timeout,
    doc: 'A connection that has sent no complete request head this long is closed.',
  },
  'a2a.body_timeout': {
    kind: durationKind(0, 100),
    default: A2A_DEFAULTS.body_timeout,
    doc: 'A request body not received in full this long after its head gets HTTP 408 and the connection closes.',
  },
  'a2a.max_long_requests': {
    kind: intKind(1),
    default: A2A_DEFAULTS.max_long_requests,
    doc: 'Streams and blocking sends one principal may hold at once (at most half of a2a.max_connections).',
  },
  'a2a.card.name': {
    kind: nullableStringKind(),
    default: null,
    doc: "The public agent card's name; null = agent.name.",
  },
  'a2a.card.description': {
    kind: stringKind(),
    default: A2A_DEFAULTS.card_description,
    doc: "The public agent card's description (never agent.instruction: the card is unauthenticated).",
  },
  'a2a.peers': {
    kind: peersKind(),
    default: {},
    doc: 'Agents workflow steps reach over A2A (a2a.send, a2a.delegate): {<name>: {url, bearer, allow_private}}.',
  },
  ...RETENTION_KEYS,
  ...PAIRING_KEYS,
};

/** Every key path, in table order. */
export const KEY_PATHS = Object.keys(KEYS) as ConfigKeyPath[];

/** `limits.run.steps` → [`limits`, `limits.run`]. */
function sectionsOf(path: string): string[] {
  const parts = path.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
}

const SECTIONS = new Set(KEY_PATHS.flatMap(sectionsOf));

/** The spec of a key path, or undefined when it is not a key (it may still be a section). */
export function keySpec(path: string): KeySpec<unknown> | undefined {
  return Object.hasOwn(KEYS, path) ? (KEYS[path as ConfigKeyPath] as KeySpec<unknown>) : undefined;
}

/** True for a path that holds keys (`agent`, `limits.run`). */
export function isSection(path: string): boolean {
  return SECTIONS.has(path);
}

/** Every section path (for suggestions). */
export function sectionPaths(): string[] {
  return [...SECTIONS];
}

/** `limits.run.steps` → `AGENTD_LIMITS_RUN_STEPS`. */
export function envNameOf(path: string): string {
  return `AGENTD_${path.replaceAll('.', '_').toUpperCase()}`;
}
