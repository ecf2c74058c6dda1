// Kinds and cross-key checks for what goes into a turn's prompt (reference §7, §8): context.template,
// agent.instruction_files, knowledge.*, skills.* and tools.overrides. Pure: shapes and validates, reads no file.
import { compileTemplate, TemplateError } from '../context/template.js';
import { type Coerced, describeType, type ValueKind } from './kinds.js';
import { closedMapping, isMapping, nameAt, problemAt, shaped } from './mappings.js';
import type { OriginOf } from './roleRules.js';
import type { Config, ToolOverride } from './types.js';

/** Mapping-only tools an MCP tool can stand in for through tools.overrides (reference §9.5). */
const MAPPABLE_TOOLS = ['knowledge.search', 'knowledge.get'] as const;

/** A list of non-empty strings; from text, a comma-separated list ("" = none). */
export function stringListKind(what: string): ValueKind<readonly string[]> {
  const check = (v: unknown): Coerced<readonly string[]> => {
    if (v === null) return { ok: true, value: [] };
    if (!Array.isArray(v)) return { ok: false, problem: `expected a list of ${what}, got ${describeType(v)}` };
    const bad = v.findIndex((item) => typeof item !== 'string' || item.trim() === '');
    if (bad >= 0) return { ok: false, problem: `expected ${what}, got ${describeType(v[bad])}`, at: [bad] };
    return { ok: true, value: (v as string[]).map((s) => s.trim()) };
  };
  return {
    type: `list of ${what}`,
    fromYaml: check,
    fromText: (t) => check(t.trim() === '' ? [] : t.split(',')),
  };
}

/** context.template: template text that must parse (reference §8.1), or null for the built-in. */
export function templateKind(): ValueKind<string | null> {
  const check = (v: unknown): Coerced<string | null> => {
    if (v === null) return { ok: true, value: null };
    if (typeof v !== 'string') return { ok: false, problem: `expected template text, got ${describeType(v)}` };
    if (v.trim() === '') return { ok: false, problem: 'the template is empty (unset it for the built-in)' };
    try {
      compileTemplate(v);
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, problem: `the template does not parse: ${err.message}` };
      throw err;
    }
    return { ok: true, value: v };
  };
  return { type: 'template text or null', fromYaml: check, fromText: (t) => check(t === 'null' ? null : t) };
}

/** tools.overrides: a mapping-only tool name → `{server, tool}`, the MCP tool that answers it. */
export function overridesKind(): ValueKind<Record<string, ToolOverride>> {
  const read = (value: unknown): Record<string, ToolOverride> => {
    if (value === null) return {};
    if (!isMapping(value)) return problemAt([], 'expected a mapping of tool names to {server, tool}');
    const out: Record<string, ToolOverride> = {};
    for (const [name, spec] of Object.entries(value)) {
      if (!(MAPPABLE_TOOLS as readonly string[]).includes(name)) {
        problemAt([name], `not a tool that can be mapped (mappable: ${MAPPABLE_TOOLS.join(', ')})`);
      }
      const m = closedMapping(spec, ['server', 'tool'], [name], 'a mapping with server and tool');
      out[name] = { server: nameAt(m['server'], [name, 'server']), tool: nameAt(m['tool'], [name, 'tool']) };
    }
    return out;
  };
  return {
    type: 'map of tool name to {server, tool}',
    merges: true,
    fromYaml: (value) => shaped(() => read(value)),
    resolveSecretsIn: (overrides) => overrides,
  };
}

/** Every server named by knowledge.server, tools.overrides and skills.sources is configured; auto_context has a route. */
export function checkPromptKeys(config: Readonly<Config>, originOf: OriginOf): string[] {
  const problems: string[] = [];
  const servers = Object.keys(config.mcp.servers);
  const report = (origin: string | undefined, path: string, problem: string): void => {
    problems.push(`${origin === undefined ? '' : `${origin}: `}${path}: ${problem}`);
  };
  const unknown = (name: string): string =>
    `'${name}' is not a configured MCP server (${servers.length === 0 ? 'mcp.servers is empty' : `configured: ${servers.join(', ')}`})`;
  const server = config.knowledge.server;
  if (server !== null && !servers.includes(server)) {
    report(originOf('knowledge.server'), 'knowledge.server', unknown(server));
  }
  for (const [name, o] of Object.entries(config.tools.overrides)) {
    if (!servers.includes(o.server)) {
      report(originOf('tools.overrides', [name, 'server']), `tools.overrides.${name}.server`, unknown(o.server));
    }
  }
  config.skills.sources.forEach((source, i) => {
    if (!servers.includes(source)) report(originOf('skills.sources', [i]), 'skills.sources', unknown(source));
  });
  const routed = server !== null || Object.hasOwn(config.tools.overrides, 'knowledge.search');
  if (config.knowledge.auto_context.on === 'turn' && !routed) {
    report(
      originOf('knowledge.auto_context.on'),
      'knowledge.auto_context.on',
      'needs a knowledge.search route: set knowledge.server or tools.overrides."knowledge.search"',
    );
  }
  return problems;
}
