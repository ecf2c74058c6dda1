// The node-kind registry (producers reference §2.4): every kind of the catalogue, built or refused at load.
// Validation, the engine and the generated docs/reference/workflow-nodes.md all read this one table.
import { A2A_KINDS } from './kinds/a2aKinds.js';
import { A2A_WAIT_KIND } from './kinds/a2aWaitKind.js';
import { ARTIFACT_KINDS } from './kinds/artifactKinds.js';
import { CHILD_KINDS } from './kinds/childKinds.js';
import { CONTROL_KINDS } from './kinds/controlKinds.js';
import { DATA_KINDS } from './kinds/dataKinds.js';
import { EMIT_KIND } from './kinds/emitKind.js';
import { HTTP_KIND } from './kinds/httpKind.js';
import { HUMAN_KIND } from './kinds/humanKind.js';
import { KNOWLEDGE_KINDS } from './kinds/knowledgeKinds.js';
import { LIST_KINDS } from './kinds/listKinds.js';
import { MCP_RESOURCE_KIND } from './kinds/mcpResourceKind.js';
import { MCP_TOOL_KIND } from './kinds/mcpToolKind.js';
import { NEST_KINDS } from './kinds/nestKinds.js';
import { PRESET_KINDS } from './kinds/presetKinds.js';
import { RUN_KINDS } from './kinds/runKinds.js';
import { SEARCH_FETCH_KIND } from './kinds/searchFetchKind.js';
import { SEARCH_QUERY_KIND } from './kinds/searchQueryKind.js';
import { START_KINDS } from './kinds/startKinds.js';
import { SUBAGENT_KIND } from './kinds/subagentKind.js';
import { THINK_KIND } from './kinds/thinkKind.js';
import { TOOL_KIND } from './kinds/toolKind.js';
import { TURN_KINDS } from './kinds/turnKinds.js';
import { WAIT_KIND } from './kinds/waitKind.js';
import type { FieldSpec, KindCategory, NodeKind } from './nodeKind.js';

/**
 * Catalogue kinds this build does not run yet, with their fields (`*` = required) so strict field checks still
 * apply: a definition that uses one is refused at load, never accepted and ignored.
 */
const NOT_BUILT: Readonly<Partial<Record<Exclude<KindCategory, 'start'>, Readonly<Record<string, string>>>>> = {};

function notBuilt(name: string, category: KindCategory, fieldList: string): NodeKind {
  const fields: Record<string, FieldSpec> = {};
  for (const word of fieldList.split(' ')) {
    const required = word.startsWith('*');
    fields[required ? word.slice(1) : word] = { required, doc: '' };
  }
  return {
    name,
    category,
    implemented: false,
    doc: 'Not built yet: a definition that uses it is refused at load.',
    fields,
  };
}

const ALL: readonly NodeKind[] = [
  ...START_KINDS,
  ...CONTROL_KINDS,
  ...NEST_KINDS,
  ...CHILD_KINDS,
  WAIT_KIND,
  ...DATA_KINDS,
  ...LIST_KINDS,
  ...KNOWLEDGE_KINDS,
  ...ARTIFACT_KINDS,
  SEARCH_QUERY_KIND,
  SEARCH_FETCH_KIND,
  HTTP_KIND,
  MCP_TOOL_KIND,
  MCP_RESOURCE_KIND,
  ...A2A_KINDS,
  A2A_WAIT_KIND,
  ...RUN_KINDS,
  EMIT_KIND,
  TOOL_KIND,
  ...TURN_KINDS,
  THINK_KIND,
  ...PRESET_KINDS,
  SUBAGENT_KIND,
  HUMAN_KIND,
  ...Object.entries(NOT_BUILT).flatMap(([category, kinds]) =>
    Object.entries(kinds).map(([n, f]) => notBuilt(n, category as KindCategory, f)),
  ),
];

export const NODE_KINDS: ReadonlyMap<string, NodeKind> = new Map(ALL.map((k) => [k.name, k]));

/** The kind named `name`, or undefined when it is not in the catalogue. */
export function nodeKind(name: string): NodeKind | undefined {
  return NODE_KINDS.get(name);
}

export const isStartKind = (name: string): boolean => NODE_KINDS.get(name)?.category === 'start';

/** Common fields every step may carry (reference §2.3); a kind's own field of the same name is read as the kind's. */
export const COMMON_FIELDS: Readonly<Record<string, string>> = {
  kind: 'The node kind.',
  depends_on: 'Step ids (a list or one string) that must finish first.',
  when: 'CEL guard; false prunes the step (and what only it feeds).',
  retry: '`{max (≤ 20), backoff}`: attempts after the first; backoff doubles, ±20 % deterministic spread.',
  timeout: 'Per-attempt limit; an overrun is a `timeout` (retried like a failure).',
  on_error: 'fail (default) | continue | goto:<step>.',
  on_replay: 'retry (default) | skip | fail: what a restart does with a step that was in flight.',
  output_schema: 'JSON Schema the step output must match.',
  cache:
    '`{key?, ttl?}`: a `done` output is kept in memory (`_cache/<sha256>` of kind, step id and the rendered `key`, else the whole rendered step) for `ttl` (forever without); a later attempt or run with the same key is `done` with it at once (`step.cache_hit`). Refused on start, finish, switch, sleep, wait, assign, transform and fail steps.',
  description: 'Free text.',
};

/** Common fields the reference lists but this build refuses rather than ignores. */
export const REFUSED_COMMON = ['budget', 'skills', 'otel', 'idempotent'] as const;
