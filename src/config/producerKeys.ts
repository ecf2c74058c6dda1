// The key table's rows for the producers of turns: subagents (reference §1.8) and workflows (§2).

import { boolKind, durationKind, intKind, type ValueKind } from './kinds.js';
import type { KeyTable } from './schema.js';
import { rateKind, templatesKind } from './subagentKeys.js';
import type { Config } from './types.js';
import { workflowsKind } from './workflowKeys.js';

type ProducerKey =
  | 'limits.subagents.depth'
  | 'limits.subagents.breadth'
  | 'limits.subagents.total'
  | 'limits.subagents.rate'
  | 'limits.subagents.per_caller'
  | 'limits.workflow.fan_out'
  | 'limits.inline_max_bytes'
  | 'subagents.allow_freeform'
  | 'subagents.keep'
  | 'subagents.keep_for'
  | 'workflows'
  | 'subagents.templates';

export const PRODUCER_KEYS: Pick<KeyTable, ProducerKey> = {
  'limits.subagents.depth': { kind: intKind(0), default: 3, doc: 'Delegation depth subagents may not reach.' },
  'limits.subagents.breadth': { kind: intKind(1), default: 8, doc: 'Live subagents at once.' },
  'limits.subagents.total': { kind: intKind(1), default: 64, doc: 'Live plus last-hour subagents.' },
  'limits.subagents.rate': { kind: rateKind(), default: '8/2s', doc: 'Spawn rate: <burst>/<period>.' },
  'limits.subagents.per_caller': {
    kind: intKind(0),
    default: 0,
    doc: 'Live subagents one turn or subagent may hold; 0 = breadth - 1 (at least 1).',
  },
  'limits.workflow.fan_out': {
    kind: intKind(1),
    default: 8,
    doc: 'Most instances one nested workflow step (foreach, batch, parallel, race) runs at once.',
  },
  'limits.inline_max_bytes': {
    kind: intKind(1024),
    default: 65_536,
    doc: 'A workflow step output larger than this (JSON bytes) is kept as an artifact and replaced by a reference.',
  },
  'subagents.allow_freeform': { kind: boolKind(), default: true, doc: 'false: subagent.run must name a template.' },
  'subagents.keep': { kind: intKind(0), default: 256, doc: 'Ended subagent records kept (newest first).' },
  'subagents.keep_for': {
    kind: durationKind(),
    default: 86_400_000,
    doc: 'How long an ended subagent record is kept.',
  },
  workflows: {
    kind: workflowsKind() as unknown as ValueKind<Config['workflows']>,
    default: [],
    doc: 'Workflow definitions: inline dialect-3 documents or {name?, file} (see docs/reference/workflow-nodes.md).',
  },
  'subagents.templates': {
    kind: templatesKind(),
    default: {},
    doc: 'Named subagents: {instruction, params: {<p>: {type, required, enum, default}}, servers, tools, limits, mode}.',
  },
};
