// The value kinds of the subagent config keys (reference §1.3, §1.13): `limits.subagents.rate` and
// `subagents.templates`. Pure; problems name the field (`params.topic.type`), never echo a secret.
import { type Coerced, describeType, type SubPath, type ValueKind } from '../config/kinds.js';
import type { SubagentTemplate, TemplateParam } from '../config/types.js';
import { SUBAGENT_MODES } from '../domain/subagent.js';
import { parseRate } from './gates.js';

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
  if (v.enum !== undefined && !Array.isArray(v.enum)) return fail('expected a list', [...at, 'enum']);
  return ok(v as unknown as TemplateParam);
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
