// The contract table of the internal tools (reference §9.5): names, families, schemas, suspension.
// Plain data: no validation or execution here (validation.ts compiles, internalTools.ts runs).
import type { ToolDef } from '../protocol/messages.js';
import { SUBAGENT_CONTRACTS } from '../subagents/subagentContracts.js';
import { WORKFLOW_CONTRACTS } from '../workflows/workflowContracts.js';
import { MAX_CONDITION_LENGTH } from './condition.js';
import { leanSchema } from './leanSchema.js';
import { closed, open } from './schemaShapes.js';
import { SKILL_CONTRACTS } from './skillContracts.js';
import { STEERING_CONTRACTS } from './steeringContracts.js';
import { type FamilyFacts, familyUsable } from './toolFamilies.js';

type Schema = Record<string, unknown>;

/** Duration arguments as strings: config/duration.ts's grammar ("250ms", "1h30m", a bare "30" = seconds). */
export const DURATION_PATTERN = '^\\s*(\\d+(\\.\\d+)?|(\\d+(\\.\\d+)?(ms|s|m|h|d))+)\\s*$';

export interface InternalContract {
  name: string;
  /** `memory`, `plan`, or the bare name for an undotted tool. */
  family: string;
  /** One sentence for the model. */
  description: string;
  /** A closed object (`additionalProperties: false`). */
  input_schema: Schema;
  /** An open object; a ready success that violates it becomes an error result. */
  output_schema: Schema;
  /** True when the call parks until the supervisor answers it later (reference §13). */
  suspends: boolean;
  /** Inputs accepted for agentd compatibility and ignored: validated, never shown to the model. */
  ignored_inputs?: readonly string[];
  /**
   * Rarely needed inputs, honoured but not shown to the model (each costs bytes on every call); documented in the
   * guide (docs/guide/tools-and-mcp.md) for operators and instructions that ask for them.
   */
  hidden_inputs?: readonly string[];
}

const KEY = { type: 'string', minLength: 1 };
const DURATION = {
  type: ['string', 'number'],
  pattern: DURATION_PATTERN,
  minimum: 0,
  description: '"250ms", "10m", "1h" or seconds.',
};
const STATUS = { type: 'string', enum: ['pending', 'in_progress', 'done', 'blocked', 'skipped'] };
const ITEM_REF = { type: ['integer', 'string'], description: 'Item id or exact title.' };
const PLAN = open(
  {
    goal: { type: 'string' },
    items: { type: 'array', items: open({ id: { type: 'integer' }, title: { type: 'string' } }, ['id', 'title']) },
  },
  ['goal', 'items'],
);
const PLAN_VIEW = open({ plan: { anyOf: [PLAN, { type: 'null' }] }, progress: { type: 'string' } }, [
  'plan',
  'progress',
]);

const CONTRACTS: InternalContract[] = [
  {
    name: 'finish',
    family: 'finish',
    description: 'End the task (the rest of this round still runs).',
    input_schema: closed({
      status: { type: 'string', enum: ['completed', 'failed', 'refused', 'cancelled'] },
      output: {},
      reason: { type: 'string' },
      exit: { type: 'boolean', description: 'Also stop the agent process.' },
    }),
    output_schema: open({ ok: { type: 'boolean' } }, ['ok']),
    suspends: false,
  },
  {
    name: 'memory.get',
    family: 'memory',
    description: 'Read a durable memory value; found is false when absent or expired.',
    input_schema: closed({ key: KEY }, ['key']),
    output_schema: open(
      { found: { type: 'boolean' }, key: { type: 'string' }, value: {}, meta: { type: ['object', 'null'] } },
      ['found', 'key', 'value', 'meta'],
    ),
    suspends: false,
  },
  {
    name: 'memory.set',
    family: 'memory',
    description: 'Store a JSON value in durable memory; ttl makes it expire.',
    input_schema: closed({ key: KEY, value: {}, ttl: DURATION }, ['key', 'value']),
    output_schema: open({ ok: { type: 'boolean' }, key: { type: 'string' } }, ['ok', 'key']),
    suspends: false,
  },
  {
    name: 'memory.list',
    family: 'memory',
    description: 'List memory keys (sorted) by prefix; truncated means more exist.',
    input_schema: closed({
      prefix: { type: 'string' },
      limit: { type: 'integer', minimum: 1, description: 'Default 100.' },
    }),
    output_schema: open({ keys: { type: 'array', items: { type: 'string' } }, truncated: { type: 'boolean' } }, [
      'keys',
      'truncated',
    ]),
    suspends: false,
  },
  {
    name: 'memory.delete',
    family: 'memory',
    description: 'Delete a memory key.',
    input_schema: closed({ key: KEY }, ['key']),
    output_schema: open({ deleted: { type: 'boolean' } }, ['deleted']),
    suspends: false,
  },
  {
    name: 'plan.create',
    family: 'plan',
    description: "Create or replace this conversation's plan: a goal and ordered items.",
    input_schema: closed(
      {
        goal: { type: 'string', minLength: 1 },
        items: {
          type: 'array',
          items: {
            anyOf: [
              { type: 'string', minLength: 1 },
              closed({ title: { type: 'string', minLength: 1 }, detail: { type: 'string' } }, ['title']),
            ],
          },
        },
      },
      ['goal', 'items'],
    ),
    output_schema: PLAN_VIEW,
    suspends: false,
  },
  {
    name: 'plan.get',
    family: 'plan',
    description: "Read this conversation's plan and progress (null if none).",
    input_schema: closed({}),
    output_schema: PLAN_VIEW,
    suspends: false,
  },
  {
    name: 'plan.update',
    family: 'plan',
    description:
      'Change one item (status, title, note or detail: "" clears; bind: {subagent} settles it when that subagent ' +
      'ends), insert an item, and/or reorder all.',
    input_schema: closed({
      item: ITEM_REF,
      status: STATUS,
      note: { type: 'string' },
      title: { type: 'string', minLength: 1 },
      detail: { type: 'string' },
      bind: closed({ subagent: { type: 'string', minLength: 1 } }, ['subagent']),
      insert: closed(
        { title: { type: 'string', minLength: 1 }, detail: { type: 'string' }, after: { type: ['integer', 'string'] } },
        ['title'],
      ),
      reorder: {
        type: 'array',
        items: { type: 'integer' },
        description: 'All item ids in the new order.',
      },
    }),
    output_schema: PLAN_VIEW,
    suspends: false,
  },
  {
    name: 'plan.clear',
    family: 'plan',
    description: "Remove this conversation's plan.",
    input_schema: closed({}),
    output_schema: open({ ok: { type: 'boolean' } }, ['ok']),
    suspends: false,
  },
  {
    name: 'sleep',
    family: 'sleep',
    description: 'Wait for a duration on a durable timer.',
    input_schema: closed({ duration: DURATION }, ['duration']),
    output_schema: open({ slept_ms: { type: 'integer', minimum: 0 } }, ['slept_ms']),
    suspends: true,
  },
  {
    name: 'await',
    family: 'await',
    description: 'Wait until a condition holds or the timeout (default 10m, max 24h).',
    input_schema: closed(
      {
        condition: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_CONDITION_LENGTH,
          description:
            'CEL over memory.<key>, plan.done, plan.total, now_ms; e.g. has(memory.report) && plan.done == plan.total',
        },
        timeout: DURATION,
      },
      ['condition'],
    ),
    output_schema: open({ satisfied: { type: 'boolean' }, timed_out: { type: 'boolean' } }, ['satisfied']),
    suspends: true,
  },
  {
    name: 'think',
    family: 'think',
    description: 'Reason in a separate model call (no tools); returns JSON shaped by output_schema.',
    input_schema: closed(
      {
        prompt: { type: 'string', minLength: 1 },
        output_schema: { type: 'object', description: 'JSON Schema of the answer.' },
        reads: { type: 'array', items: KEY, maxItems: 32, description: 'Memory keys it sees.' },
      },
      ['prompt'],
    ),
    output_schema: {},
    suspends: true,
  },
  {
    name: 'decide',
    family: 'decide',
    description: 'Pick one of 2-16 options in a separate model call: its choice (verbatim) and confidence (0-1).',
    input_schema: closed(
      {
        question: { type: 'string', minLength: 1 },
        options: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          minItems: 2,
          maxItems: 16,
          uniqueItems: true,
        },
        context: { type: 'string' },
      },
      ['question', 'options'],
    ),
    output_schema: open({ choice: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } }, [
      'choice',
      'confidence',
    ]),
    suspends: true,
  },
  {
    name: 'context.compact',
    family: 'context',
    description: "Summarize this conversation's history to free context.",
    input_schema: closed({
      target_tokens: { type: 'integer', minimum: 1 },
      keep_last: { type: 'integer', minimum: 0, description: 'Recent messages kept verbatim.' },
    }),
    output_schema: open(
      {
        version: { type: 'integer' },
        est_tokens: { type: 'integer', minimum: 0 },
        folded: { type: 'integer', minimum: 0 },
        note: { type: 'string' },
      },
      ['version', 'est_tokens', 'folded'],
    ),
    suspends: true,
  },
  {
    name: 'message.send',
    family: 'message',
    description: 'Start a turn in another conversation; returns once queued (no reply).',
    input_schema: closed(
      {
        to: { type: 'string', minLength: 1, description: '"root" (default), "new", or a conversation id.' },
        text: { type: 'string', minLength: 1 },
      },
      ['text'],
    ),
    output_schema: open(
      { delivered: { type: 'boolean' }, conversation: { type: 'string' }, depth: { type: 'integer', minimum: 0 } },
      ['delivered', 'conversation', 'depth'],
    ),
    suspends: false,
  },
  {
    name: 'status',
    family: 'status',
    description: "The agent's runtime status (conversations, turns, limits).",
    input_schema: closed({}),
    output_schema: { type: 'object' },
    suspends: false,
  },
  {
    name: 'ask_human',
    family: 'ask_human',
    description: 'Ask a person and wait for the reply (null, timed_out true, when none comes in time).',
    input_schema: closed(
      {
        question: { type: 'string', description: 'Self-contained (cut at 2000 bytes).' },
        schema: { type: 'object', description: 'JSON Schema of the reply.' },
        timeout: { ...DURATION, description: 'Default 24h.' },
      },
      ['question'],
    ),
    output_schema: open({ reply: {}, timed_out: { type: 'boolean' } }, ['reply', 'timed_out']),
    suspends: true,
  },
  ...STEERING_CONTRACTS,
  ...SKILL_CONTRACTS,
  ...SUBAGENT_CONTRACTS,
  ...WORKFLOW_CONTRACTS,
];

const BY_NAME: ReadonlyMap<string, InternalContract> = new Map(CONTRACTS.map((c) => [c.name, c]));

/** Every internal contract, in table order. */
export function internalContracts(): readonly InternalContract[] {
  return CONTRACTS;
}

/** The contract named `name`, or undefined. */
/**
 * Internal tools that change nothing outside the turn (plan mode lets only these, read-only MCP tools and
 * `security.read_only_tools` run). `finish` ends the turn; `ask_human` only asks.
 */
const READ_ONLY_INTERNAL: ReadonlySet<string> = new Set([
  'finish',
  'memory.get',
  'memory.list',
  'plan.get',
  'sleep',
  'await',
  'think',
  'decide',
  'status',
  'ask_human',
  'goal.get',
  'skills.list',
  'skills.load',
  'subagent.status',
  'subagent.list',
  'subagent.await',
  'subagent.result',
  'workflow.status',
  'workflow.list',
  'workflow.wait',
]);

/** True for an internal tool plan mode may run. */
export function isReadOnlyInternal(name: string): boolean {
  return READ_ONLY_INTERNAL.has(name);
}

export function internalContract(name: string): InternalContract | undefined {
  return BY_NAME.get(name);
}

/** The definitions the model sees, in table order (lean schemas: see leanSchema). */
export function internalToolDefs(): ToolDef[] {
  return CONTRACTS.map(modelDef);
}

/** A contract as the model sees it: the input schema without validator-only keywords. */
export function modelDef(c: InternalContract): ToolDef {
  const omit = [...(c.ignored_inputs ?? []), ...(c.hidden_inputs ?? [])];
  return { name: c.name, description: c.description, input_schema: leanSchema(c.input_schema, omit) };
}

/** The contracts a turn of this instance can use (tools/toolFamilies.ts decides the conditional families). */
export function grantedInternalContracts(facts: FamilyFacts): InternalContract[] {
  return CONTRACTS.filter((c) => familyUsable(c.family, facts));
}

/** grantedInternalContracts as the definitions the model sees. */
export function grantedInternalDefs(facts: FamilyFacts): ToolDef[] {
  return grantedInternalContracts(facts).map(modelDef);
}

/** Whether calling `name` parks until the supervisor answers it later. */
export function isSuspending(name: string): boolean {
  return BY_NAME.get(name)?.suspends ?? false;
}

/**
 * Display families for granted internal tool names: dotted families as `family.*` first, then bare names,
 * each group sorted and deduplicated — e.g. ["memory.*", "plan.*", "finish", "sleep"].
 */
export function internalFamilies(names: readonly string[]): string[] {
  const dotted = new Set<string>();
  const bare = new Set<string>();
  for (const name of names) {
    const family = BY_NAME.get(name)?.family ?? name.split('.')[0] ?? name;
    if (family === name) bare.add(name);
    else dotted.add(`${family}.*`);
  }
  return [...[...dotted].sort(), ...[...bare].sort()];
}
