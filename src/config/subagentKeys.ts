// The value kinds of the subagent config keys (reference §1.3, §1.13): `limits.subagents.rate` and
// `subagents.templates`, and the subagent value readers the gates share (rate, size, CPU time). Pure; problems
// name the field (`params.topic.type`), never echo a secret.
import { SUBAGENT_MODES } from '../domain/subagent.js';
import { parseDuration } from './duration.js';
import { type Coerced, describeType, type SubPath, type ValueKind } from './kinds.js';
import type { OriginOf } from './roleRules.js';
import type { Config, SubagentTemplate, TemplateParam } from './types.js';

/** `<burst>/<period>` → its parts; null when either part does not read. */
export function parseRate(text: string): { burst: number; periodMs: number } | null {
  const match = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(text);
  if (!match) return null;
  const burst = Number(match[1]);
  let periodMs: number;
  try {
    periodMs = parseDuration(match[2] ?? '');
  } catch {
    return null;
  }
  return burst >= 1 && periodMs >= 1 ? { burst, periodMs } : null;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** Bytes of a size (`512MB`, `1.5g`, `4096`); all units binary. Throws a one-line reason. */
export function parseSize(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value) : null;
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) throw new Error(`expected a size like 512MB or 2g, got ${JSON.stringify(value)}`);
  return Math.floor(Number(match[1]) * unit);
}

/** Whole seconds of a CPU-time limit, floored at 1 s. Throws a one-line reason. */
export function parseCpuSeconds(value: unknown): number {
  const ms = typeof value === 'number' ? value * 1000 : parseDuration(String(value));
  if (!Number.isFinite(ms) || ms < 0)
    throw new Error(`expected a duration like 30s or 5m, got ${JSON.stringify(value)}`);
  return Math.max(1, Math.floor(ms / 1000));
}

const ok = <V>(value: V): Coerced<V> => ({ ok: true, value });
const fail = <V>(problem: string, at?: SubPath): Coerced<V> =>
  at ? { ok: false, problem, at } : { ok: false, problem };

/** `<burst>/<period>` (`8/2s`): a spawn burst and the period it refills over. */
export function rateKind(): ValueKind<string> {
  const check = (v: unknown): Coerced<string> => {
    if (typeof v !== 'string') return fail(`expected "<burst>/<period>" like "8/2s", got ${describeType(v)}`);
    return parseRate(v) === null ? fail(`expected "<burst>/<period>" like "8/2s", got "${v}"`) : ok(v.trim());
  };
  return { type: 'rate "<burst>/<period>"', fromYaml: check, fromText: check };
}

const PARAM_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
const TEMPLATE_FIELDS = ['instruction', 'params', 'servers', 'tools', 'limits', 'mode'];
const LIMIT_FIELDS = ['steps', 'tokens', 'deadline', 'memory', 'cpu'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownField(v: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(v).find((k) => !allowed.includes(k));
}

function stringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim() !== '');
}

function checkParam(name: string, v: unknown): Coerced<TemplateParam> {
  const at = ['params', name];
  if (!isObj(v)) return fail(`expected a mapping {type, required?, enum?, default?}, got ${describeType(v)}`, at);
  const extra = unknownField(v, ['type', 'required', 'enum', 'default', 'description']);
  if (extra) return fail(`unknown field "${extra}"`, [...at, extra]);
  if (!PARAM_TYPES.includes(v.type as (typeof PARAM_TYPES)[number])) {
    return fail(`expected one of ${PARAM_TYPES.join(', ')}`, [...at, 'type']);
  }
  if (v.required !== undefined && typeof v.required !== 'boolean')
    return fail('expected true or false', [...at, 'required']);
  const type = v.type as TemplateParam['type'];
  if (v.enum !== undefined) {
    if (!Array.isArray(v.enum)) return fail('expected a list', [...at, 'enum']);
    const bad = v.enum.findIndex((e) => !paramTypeOk(type, e));
    if (bad >= 0) return fail(`expected ${type} values, got ${describeType(v.enum[bad])}`, [...at, 'enum']);
  }
  if (v.default !== undefined) {
    if (!paramTypeOk(type, v.default))
      return fail(`expected ${type}, got ${describeType(v.default)}`, [...at, 'default']);
    if (Array.isArray(v.enum) && !v.enum.includes(v.default)) return fail('not one of the enum', [...at, 'default']);
  }
  return ok(v as unknown as TemplateParam);
}

/** Whether `value` is of a template parameter's declared type. */
export function paramTypeOk(type: TemplateParam['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/** A template's `limits` read as subagent.run reads them: a bad value is a load error naming the field. */
function checkLimits(v: Record<string, unknown>): { field: string; problem: string } | null {
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  const reads: Record<string, (x: unknown) => void> = {
    steps: (x) => {
      if (!count(x)) throw new Error(`expected a whole number, got ${describeType(x)}`);
    },
    tokens: (x) => {
      if (!count(x)) throw new Error(`expected a whole number, got ${describeType(x)}`);
    },
    // A number is seconds, as subagent.run reads it; a negative or non-finite one would silently fall back.
    deadline: (x) => {
      if (typeof x !== 'number') parseDuration(String(x));
      else if (!Number.isFinite(x) || x <= 0) throw new Error(`expected a positive duration, got ${x}`);
    },
    memory: parseSize,
    cpu: parseCpuSeconds,
  };
  for (const [field, value] of Object.entries(v)) {
    try {
      reads[field]?.(value);
    } catch (err) {
      return { field, problem: (err as Error).message };
    }
  }
  return null;
}

function checkTemplate(v: unknown): Coerced<SubagentTemplate> {
  if (!isObj(v)) return fail(`expected a mapping with an instruction, got ${describeType(v)}`);
  const extra = unknownField(v, TEMPLATE_FIELDS);
  if (extra) return fail(`unknown field "${extra}" (allowed: ${TEMPLATE_FIELDS.join(', ')})`, [extra]);
  if (typeof v.instruction !== 'string' || v.instruction.trim() === '') {
    return fail('expected a non-empty instruction', ['instruction']);
  }
  const params: Record<string, TemplateParam> = {};
  if (v.params !== undefined) {
    if (!isObj(v.params)) return fail('expected a mapping of parameter names', ['params']);
    for (const [name, spec] of Object.entries(v.params)) {
      const param = checkParam(name, spec);
      if (!param.ok) return param;
      params[name] = param.value;
    }
  }
  for (const field of ['servers', 'tools'] as const) {
    if (v[field] !== undefined && !stringList(v[field])) return fail('expected a list of names', [field]);
  }
  if (v.limits !== undefined) {
    if (!isObj(v.limits)) return fail('expected a mapping', ['limits']);
    const bad = unknownField(v.limits, LIMIT_FIELDS);
    if (bad) return fail(`unknown field "${bad}" (allowed: ${LIMIT_FIELDS.join(', ')})`, ['limits', bad]);
    const unread = checkLimits(v.limits);
    if (unread) return fail(unread.problem, ['limits', unread.field]);
  }
  if (v.mode !== undefined && !SUBAGENT_MODES.includes(v.mode as (typeof SUBAGENT_MODES)[number])) {
    return fail(`expected one of ${SUBAGENT_MODES.join(', ')}`, ['mode']);
  }
  return ok({ ...(v as unknown as SubagentTemplate), params });
}

/** `subagents.templates`: template name → {instruction, params, servers?, tools?, limits?, mode?}. */
export function templatesKind(): ValueKind<Record<string, SubagentTemplate>> {
  return {
    type: 'mapping of template names',
    merges: true,
    fromYaml: (v) => {
      if (v === null) return ok({});
      if (!isObj(v)) return fail(`expected a mapping of template names, got ${describeType(v)}`);
      const out: Record<string, SubagentTemplate> = {};
      for (const [name, spec] of Object.entries(v)) {
        const checked = checkTemplate(spec);
        if (!checked.ok) return { ...checked, at: [name, ...(checked.at ?? [])] };
        out[name] = checked.value;
      }
      return ok(out);
    },
  };
}

/** Every server a template grants is configured: a misspelt name would silently grant nothing (reference §1.3). */
export function checkTemplateServers(config: Readonly<Config>, originOf: OriginOf): string[] {
  const configured = Object.keys(config.mcp.servers);
  const problems: string[] = [];
  for (const [name, template] of Object.entries(config.subagents.templates)) {
    (template.servers ?? []).forEach((server, i) => {
      if (configured.includes(server)) return;
      const origin = originOf('subagents.templates', [name, 'servers', i]);
      const known = configured.length === 0 ? 'mcp.servers is empty' : `configured: ${configured.join(', ')}`;
      problems.push(
        `${origin === undefined ? '' : `${origin}: `}subagents.templates.${name}.servers: '${server}' is not a ` +
          `configured MCP server (${known})`,
      );
    });
  }
  return problems;
}
