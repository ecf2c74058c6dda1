// Data kinds over values and memory (producers reference §2.4, §2.8): assign, transform, template, parse, validate,
// memory.get/set/list/delete. `assign`/`transform` write the run variable named by `writes` (default: the step id).
import { parse as parseYaml } from 'yaml';
import { reservedKeyProblem, reservedMemoryPrefix } from '../../domain/memory.js';
import { parseWorkflowDuration } from '../durations.js';
import { schemaCompileProblem, schemaProblem } from '../jsonSchema.js';
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { REDUCERS, type Reducer, reduceVar } from '../reducers.js';

function writeVar(ctx: StepContext): StepResult {
  const name = typeof ctx.spec['writes'] === 'string' ? ctx.spec['writes'] : ctx.step.id;
  const mode = (ctx.spec['mode'] as Reducer | undefined) ?? 'overwrite';
  const value = ctx.spec['value'];
  return { type: 'done', output: value, setVar: { name, value: reduceVar(ctx.run.vars[name], value, mode) } };
}

const VAR_FIELDS = {
  value: { required: true, doc: 'The value (templates or `CEL:`).' },
  writes: { doc: 'The run variable written (default: the step id).' },
  mode: { doc: 'overwrite (default) | append | merge | union.' },
};

const checkMode = (f: Readonly<Record<string, unknown>>): string[] =>
  f['mode'] === undefined || REDUCERS.includes(f['mode'] as Reducer)
    ? []
    : [`mode must be one of ${REDUCERS.join('|')}`];

/** The step's key, or the one-line refusal of a missing one or one agentd keeps for itself (`_artifacts/`…). */
function memoryKey(ctx: StepContext): { key: string } | { error: string } {
  const key = ctx.spec['key'];
  const kind = ctx.step.kind;
  if (typeof key !== 'string' || key === '') return { error: `${kind}: key must be a non-empty string` };
  const reserved = reservedKeyProblem(kind, key);
  return reserved === null ? { key } : { error: reserved };
}

async function memoryList(ctx: StepContext): Promise<StepResult> {
  const prefix = String(ctx.spec['prefix'] ?? '');
  const reserved = reservedKeyProblem('memory.list', prefix, 'prefix');
  if (reserved !== null) return failed(reserved);
  // A shorter prefix ("", "_") also matches agentd's own keys: they are left out of the answer.
  const { keys, truncated } = await ctx.ports.memory.list(prefix, Number(ctx.spec['limit'] ?? 100), ctx.now);
  return done({ keys: keys.filter((k) => !reservedMemoryPrefix(k)), truncated });
}

export const DATA_KINDS: readonly NodeKind[] = [
  {
    name: 'assign',
    category: 'data',
    implemented: true,
    doc: 'Sets a run variable (`vars.<writes>`) and outputs the value.',
    fields: VAR_FIELDS,
    check: checkMode,
    run: writeVar,
  },
  {
    name: 'transform',
    category: 'data',
    implemented: true,
    doc: 'Same as `assign`: computes a value (usually `CEL:`) into a run variable.',
    fields: VAR_FIELDS,
    check: checkMode,
    run: writeVar,
  },
  {
    name: 'template',
    category: 'data',
    implemented: true,
    doc: 'Renders `text` (string interpolation) or `value` (typed) and outputs it.',
    fields: { text: { doc: 'A text template.' }, value: { doc: 'A structured template.' } },
    run: ({ spec }) => done(spec['text'] ?? spec['value'] ?? null),
  },
  {
    name: 'parse',
    category: 'data',
    implemented: true,
    doc: 'Parses `text` as `format` json (default) or yaml.',
    fields: { text: { required: true, doc: 'The text.' }, format: { doc: 'json | yaml.' } },
    check: (f) =>
      f['format'] === undefined || f['format'] === 'json' || f['format'] === 'yaml'
        ? []
        : ['parse.format must be json or yaml'],
    run: ({ spec }) => {
      try {
        const text = String(spec['text']);
        return done(spec['format'] === 'yaml' ? parseYaml(text) : JSON.parse(text));
      } catch (err) {
        return failed(`parse: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
      }
    },
  },
  {
    name: 'validate',
    category: 'data',
    implemented: true,
    doc: 'Checks `value` against the JSON Schema `schema`; fails `validation failed: <explain>`. Output the value.',
    fields: { value: { required: true, doc: 'The value.' }, schema: { required: true, doc: 'A JSON Schema.' } },
    check: (f) => {
      const problem = schemaCompileProblem(f['schema']);
      return problem === null ? [] : [`validate.schema: ${problem}`];
    },
    run: ({ spec }) => {
      const problem = schemaProblem(spec['schema'], spec['value']);
      return problem === null ? done(spec['value']) : failed(`validation failed: ${problem}`);
    },
  },
  {
    name: 'memory.get',
    category: 'data',
    implemented: true,
    effect: true,
    doc: "Reads a memory key (the memory tool's store); output its value or null.",
    fields: { key: { required: true, doc: 'The key.' } },
    run: async (ctx) => {
      const key = memoryKey(ctx);
      if ('error' in key) return failed(key.error);
      return done((await ctx.ports.memory.get(key.key, ctx.now))?.value ?? null);
    },
  },
  {
    name: 'memory.set',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Writes a memory key, optionally expiring after `ttl`. Output `{ok: true}`.',
    fields: {
      key: { required: true, doc: 'The key.' },
      value: { required: true, doc: 'The value.' },
      ttl: { doc: 'A duration.' },
    },
    run: async (ctx) => {
      const key = memoryKey(ctx);
      if ('error' in key) return failed(key.error);
      const ttl = ctx.spec['ttl'] === undefined ? null : parseWorkflowDuration(ctx.spec['ttl']);
      if (ttl && !ttl.ok) return failed(`memory.set: ttl: ${ttl.error}`);
      await ctx.ports.memory.set({
        key: key.key,
        value: ctx.spec['value'],
        expires: ttl ? ctx.now + ttl.ms : null,
        updated: ctx.now,
      });
      return done({ ok: true });
    },
  },
  {
    name: 'memory.list',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Lists memory keys with `prefix` (at most `limit`, default 100). Output `{keys, truncated}`.',
    fields: { prefix: { doc: 'Key prefix.' }, limit: { doc: 'Most keys returned.' } },
    run: memoryList,
  },
  {
    name: 'memory.delete',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Deletes a memory key. Output `{deleted}`.',
    fields: { key: { required: true, doc: 'The key.' } },
    run: async (ctx) => {
      const key = memoryKey(ctx);
      if ('error' in key) return failed(key.error);
      return done({ deleted: await ctx.ports.memory.delete(key.key) });
    },
  },
];
