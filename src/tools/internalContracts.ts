// The contract table of the internal tools (reference §9.5): names, families, schemas, suspension.
// Plain data: no validation or execution here (validation.ts compiles, internalTools.ts runs).
import type { ToolDef } from '../protocol/messages.js';
import { SUBAGENT_CONTRACTS } from '../subagents/subagentContracts.js';
import { WORKFLOW_CONTRACTS } from '../workflows/workflowContracts.js';
import { MAX_CONDITION_LENGTH } from './condition.js';
import { closed, open } from './schemaShapes.js';
import { SKILL_CONTRACTS } from './skillContracts.js';
import { STEERING_CONTRACTS } from './steeringContracts.js';

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
}

const KEY = { type: 'string', minLength: 1, description: 'The memory key.' };
const DURATION = {
  type: ['string', 'number'],
  pattern: DURATION_PATTERN,
  minimum: 0,
  description: 'A duration like "250ms", "2s", "10m", "1h", or a number of seconds.',
};
const STATUS = { type: 'string', enum: ['pending', 'in_progress', 'done', 'blocked', 'skipped'] };
const ITEM_REF = { type: ['integer', 'string'], description: 'An item id, or its exact title.' };
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
    description: 'End the task with a final status and output; the rest of this round still runs first.',
    input_schema: closed({
      status: { type: 'string', enum: ['completed', 'failed', 'refused', 'cancelled'] },
      output: { description: 'The final result (any JSON value).' },
      reason: { type: 'string', description: 'Why the task ends this way.' },
      exit: { type: 'boolean', description: 'Also stop the agent process.' },
    }),
    output_schema: open({ ok: { type: 'boolean' } }, ['ok']),
    suspends: false,
  },
  {
    name: 'memory.get',
    family: 'memory',
    description: 'Read a durable memory value by key; found is false when the key is absent or expired.',
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
    description: 'Store a JSON value under a key in durable memory, optionally expiring after ttl.',
    input_schema: closed({ key: KEY, value: { description: 'Any JSON value.' }, ttl: DURATION }, ['key', 'value']),
    output_schema: open({ ok: { type: 'boolean' }, key: { type: 'string' } }, ['ok', 'key']),
    suspends: false,
  },
  {
    name: 'memory.list',
    family: 'memory',
    description: 'List memory keys (sorted) that start with a prefix; truncated is true when more exist.',
    input_schema: closed({
      prefix: { type: 'string', description: 'Only keys starting with this.' },
      limit: { type: 'integer', minimum: 1, description: 'At most this many keys (default 100).' },
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
    description: 'Delete a memory key; deleted tells whether it existed.',
    input_schema: closed({ key: KEY }, ['key']),
    output_schema: open({ deleted: { type: 'boolean' } }, ['deleted']),
    suspends: false,
  },
  {
    name: 'plan.create',
    family: 'plan',
    description: "Create (or replace) this conversation's plan: a goal and an ordered checklist of items.",
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
    description: "Read this conversation's plan and its progress (plan is null when there is none).",
    input_schema: closed({}),
    output_schema: PLAN_VIEW,
    suspends: false,
  },
  {
    name: 'plan.update',
    family: 'plan',
    description: 'Change one plan item (status, note, title, detail), insert an item, and/or reorder all items.',
    input_schema: closed({
      item: ITEM_REF,
      status: STATUS,
      note: { type: 'string', description: 'A short note on the item; "" clears it.' },
      title: { type: 'string', minLength: 1 },
      detail: { type: 'string', description: '"" clears it.' },
      insert: closed({ title: { type: 'string', minLength: 1 }, detail: { type: 'string' }, after: ITEM_REF }, [
        'title',
      ]),
      reorder: {
        type: 'array',
        items: { type: 'integer' },
        description: 'Every item id exactly once, in the new order.',
      },
    }),
    output_schema: PLAN_VIEW,
    suspends: false,
  },
  {
    name: 'plan.clear',
    family: 'plan',
    description: "Remove this conversation's plan; ok tells whether there was one.",
    input_schema: closed({}),
    output_schema: open({ ok: { type: 'boolean' } }, ['ok']),
    suspends: false,
  },
  {
    name: 'sleep',
    family: 'sleep',
    description: 'Wait for a duration on a durable timer, then continue.',
    input_schema: closed({ duration: DURATION }, ['duration']),
    output_schema: open({ slept_ms: { type: 'integer', minimum: 0 } }, ['slept_ms']),
    suspends: true,
  },
  {
    name: 'await',
    family: 'await',
    description:
      'Wait until a condition over memory, the plan and the clock holds (e.g. `exists(memory.report) && ' +
      'plan.done == plan.total`), or until the timeout (default 10m, at most 24h).',
    input_schema: closed(
      {
        condition: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_CONDITION_LENGTH,
          description:
            'An expression over memory.<key> or memory["key"] (one .field deep), plan.done, plan.total, now_ms, ' +
            'literals, exists(memory.<key>), ==, !=, <, <=, >, >=, &&, ||, ! and parentheses.',
        },
        timeout: DURATION,
      },
      ['condition'],
    ),
    output_schema: open({ satisfied: { type: 'boolean' }, value: {}, timed_out: { type: 'boolean' } }, ['satisfied']),
    suspends: true,
  },
  {
    name: 'think',
    family: 'think',
    description:
      'Reason about a request in a separate model call without tools and get its conclusion back as JSON ' +
      '(shaped by output_schema when given); reads adds memory values to what it sees.',
    input_schema: closed(
      {
        prompt: { type: 'string', minLength: 1, description: 'What to think about.' },
        output_schema: { type: 'object', description: 'A JSON Schema the answer must match.' },
        reads: { type: 'array', items: KEY, maxItems: 32, description: 'Memory keys to show the reasoning.' },
      },
      ['prompt'],
    ),
    output_schema: {},
    suspends: true,
  },
  {
    name: 'decide',
    family: 'decide',
    description:
      'Choose one of 2-16 options for a question in a separate model call; returns the choice and a confidence (0-1).',
    input_schema: closed(
      {
        question: { type: 'string', minLength: 1 },
        options: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          minItems: 2,
          maxItems: 16,
          uniqueItems: true,
          description: 'The distinct choices; the answer is one of them verbatim.',
        },
        context: { type: 'string', description: 'Background that bears on the choice.' },
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
    description: "Compact this conversation's history into a summary to free context; reports its estimated size.",
    input_schema: closed({
      target_tokens: { type: 'integer', minimum: 1, description: 'Aim for at most this many tokens.' },
      keep_last: { type: 'integer', minimum: 0, description: 'Keep this many recent messages verbatim.' },
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
    description:
      'Send a message that starts a turn in another conversation ("root", "new" for a fresh one, or a ' +
      'conversation id); returns once it is durably queued, without waiting for the reply.',
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
    description: "Report the agent's current runtime status (conversations, turns, limits) as an object.",
    input_schema: closed({}),
    output_schema: { type: 'object' },
    suspends: false,
  },
  {
    name: 'ask_human',
    family: 'ask_human',
    description:
      'Ask a person a question and wait for the reply; reply is null and timed_out true when nobody answers in time.',
    input_schema: closed(
      {
        question: { type: 'string', description: 'The question, self-contained (cut at 2000 bytes).' },
        schema: { type: 'object', description: 'A JSON Schema the reply must match.' },
        timeout: { ...DURATION, description: 'How long to wait (default 24h).' },
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

/** Families granted only when the instance has what they need (skills.* needs skills.sources). */
const CONDITIONAL_FAMILIES = new Set(['skills']);

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

/** The definitions the model sees, in table order. */
export function internalToolDefs(): ToolDef[] {
  return CONTRACTS.map((c) => ({ name: c.name, description: c.description, input_schema: c.input_schema }));
}

/** The contracts this instance offers: skills.* only when it has skill sources. */
export function grantedInternalContracts(has: { skills: boolean }): InternalContract[] {
  return CONTRACTS.filter((c) => !CONDITIONAL_FAMILIES.has(c.family) || (c.family === 'skills' && has.skills));
}

/** grantedInternalContracts as the definitions the model sees. */
export function grantedInternalDefs(has: { skills: boolean }): ToolDef[] {
  return grantedInternalContracts(has).map((c) => ({
    name: c.name,
    description: c.description,
    input_schema: c.input_schema,
  }));
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
