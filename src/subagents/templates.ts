// Subagent templates (reference §1.3): `subagent.run {template, params}` resolved to the run's instruction and
// grants, params checked at call time with refusals that name the field. Pure.
import { paramTypeOk } from '../config/subagentKeys.js';
import type { SubagentsConfig, SubagentTemplate } from '../config/types.js';

type TemplateConfig = Pick<SubagentsConfig, 'allow_freeform' | 'templates'>;

/** The run arguments after a template was applied (the call's own grants win over the template's). */
export type Resolved = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** Checks `params` against the template's declarations; returns the values with defaults, or the refusal. */
export function checkParams(
  template: SubagentTemplate,
  params: Record<string, unknown>,
): { ok: true; values: Record<string, unknown> } | { ok: false; error: string } {
  const unknown = Object.keys(params).find((name) => !Object.hasOwn(template.params, name));
  if (unknown !== undefined)
    return { ok: false, error: `subagent.run: params.${unknown}: not a parameter of this template` };
  const values: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(template.params)) {
    const value = Object.hasOwn(params, name) ? params[name] : param.default;
    if (value === undefined) {
      if (param.required) return { ok: false, error: `subagent.run: params.${name}: required` };
      continue;
    }
    if (!paramTypeOk(param.type, value))
      return { ok: false, error: `subagent.run: params.${name}: expected ${param.type}` };
    if (param.enum && !param.enum.some((e) => e === value)) {
      const allowed = param.enum.map((e) => JSON.stringify(e)).join(', ');
      return { ok: false, error: `subagent.run: params.${name}: must be one of ${allowed}` };
    }
    values[name] = value;
  }
  return { ok: true, values };
}

/** `{{name}}` in the instruction → the param's value (text as is, anything else as JSON). */
function fill(instruction: string, values: Record<string, unknown>): string {
  return instruction.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** Applies `args.template` when given; refuses freeform runs when `subagents.allow_freeform` is false. */
export function resolveTemplate(args: Record<string, unknown>, cfg: TemplateConfig): Resolved {
  const name = args.template;
  if (name === undefined) {
    if (!cfg.allow_freeform) {
      return { ok: false, error: 'subagent.run refused: subagents.allow_freeform is false; name a template' };
    }
    if (args.params !== undefined) return { ok: false, error: 'subagent.run: params need a template' };
    return { ok: true, args };
  }
  if (args.instruction !== undefined) return { ok: false, error: 'subagent.run: give either template or instruction' };
  const template = typeof name === 'string' && Object.hasOwn(cfg.templates, name) ? cfg.templates[name] : undefined;
  if (template === undefined) {
    const known = Object.keys(cfg.templates).sort().join(', ') || 'none';
    return { ok: false, error: `subagent.run: template: no template ${JSON.stringify(name)} (known: ${known})` };
  }
  const checked = checkParams(template, (args.params as Record<string, unknown> | undefined) ?? {});
  if (!checked.ok) return checked;
  const { params: _params, ...rest } = args;
  const merged: Record<string, unknown> = {
    ...(template.mode ? { mode: template.mode } : {}),
    ...(template.servers ? { servers: template.servers } : {}),
    ...(template.tools ? { tools: template.tools } : {}),
    ...(template.limits ? { limits: template.limits } : {}),
    ...rest,
    instruction: fill(template.instruction, checked.values),
  };
  return { ok: true, args: merged };
}

/** The `## Subagent templates` prompt section listing each template and its params; "" without templates. */
export function templatesSection(cfg: TemplateConfig): string {
  const names = Object.keys(cfg.templates).sort();
  if (names.length === 0) return '';
  const lines = names.map((name) => {
    const params = Object.entries(cfg.templates[name]?.params ?? {})
      .map(([p, spec]) => `${p}: ${spec.type}${spec.required ? '' : '?'}`)
      .join(', ');
    return `- ${name}(${params})`;
  });
  return `## Subagent templates (spawn with subagent.run {template, params})\n${lines.join('\n')}`;
}
