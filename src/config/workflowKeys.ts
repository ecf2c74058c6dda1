// The `workflows:` config key (producers reference §2.1): a list of inline dialect-3 documents or `{name?, file}`
// entries. The key checks only each entry's shape; the documents are parsed at compile time by the loader the
// caller passes in (`ConfigSources.workflows`, the workflows feature's `loadWorkflow`): the config layer owns
// layering, files and error placement, and imports no feature folder (house rules), while `--validate-config`
// still exits 2 naming the workflow, the step and the field, before any side effect.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { WorkflowDef } from '../domain/workflow.js';
import type { Coerced, ValueKind } from './kinds.js';
import type { OriginOf } from './roleRules.js';

/**
 * Parses and hashes one workflow document, or answers the reference's error texts naming workflow, step and field
 * (the workflows feature's `loadWorkflow`, passed in by the caller: the config layer imports no feature folder).
 * Absent from ConfigSources: a config that defines a workflow is a config error.
 */
export type WorkflowLoader = (doc: unknown) => { ok: true; def: WorkflowDef } | { ok: false; errors: string[] };

/** An entry before it is loaded: an inline document, or a file still to read. */
export type WorkflowEntry = { doc: Record<string, unknown> } | { file: string; name?: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function entryOf(raw: unknown): Coerced<WorkflowEntry> {
  if (!isObject(raw)) return { ok: false, problem: 'expected a workflow (a mapping with name and steps) or {file}' };
  if (typeof raw['file'] === 'string' && raw['steps'] === undefined) {
    const extra = Object.keys(raw).filter((k) => k !== 'file' && k !== 'name');
    if (extra.length > 0)
      return { ok: false, problem: `unknown field "${extra[0]}" beside file (allowed: name, file)` };
    return {
      ok: true,
      value: typeof raw['name'] === 'string' ? { file: raw['file'], name: raw['name'] } : { file: raw['file'] },
    };
  }
  if (raw['uri'] !== undefined || raw['url'] !== undefined || raw['dir'] !== undefined)
    return {
      ok: false,
      problem: 'workflow sources uri, url and dir are not implemented in this build (use inline or file)',
    };
  return { ok: true, value: { doc: raw } };
}

/** `workflows`: a list; a malformed entry is placed at its index. Secrets stay verbatim for the step to resolve. */
export function workflowsKind(): ValueKind<readonly WorkflowEntry[]> {
  return {
    type: 'list of workflows',
    fromYaml: (v) => {
      if (v === null) return { ok: true, value: [] };
      if (!Array.isArray(v)) return { ok: false, problem: 'expected a list of workflows' };
      const out: WorkflowEntry[] = [];
      for (const [i, raw] of v.entries()) {
        const entry = entryOf(raw);
        if (!entry.ok) return { ...entry, at: [i] };
        out.push(entry.value);
      }
      return { ok: true, value: out };
    },
    resolveSecretsIn: (value) => value,
  };
}

/** What loading the entries needs: the base of relative files, the parser, where each inline entry was written. */
export interface WorkflowLoading {
  cwd: string;
  /** Absent: the caller loads no workflows, and a config that defines one is a problem. */
  loader: WorkflowLoader | undefined;
  originOf: OriginOf;
}

/** Reads the `{file}` entries and parses every document; problems name the place, the workflow, step and field. */
export function loadWorkflowFiles(
  entries: readonly WorkflowEntry[],
  { cwd, loader, originOf }: WorkflowLoading,
): { defs: WorkflowDef[]; problems: string[] } {
  const defs: WorkflowDef[] = [];
  const problems: string[] = [];
  if (entries.length > 0 && loader === undefined)
    return { defs, problems: ['workflows: this program loads no workflows (compileConfig was given no loader)'] };
  for (const [i, entry] of entries.entries()) {
    const where = 'doc' in entry ? `${originOf('workflows', [i]) ?? 'config'}: workflows[${i}]` : null;
    const doc = 'doc' in entry ? entry.doc : readWorkflowFile(entry, cwd, problems);
    if (doc === undefined) continue;
    const loaded = (loader as WorkflowLoader)(doc);
    if (loaded.ok) defs.push(loaded.def);
    else if (where !== null) problems.push(`${where}: ${loaded.errors.join('; ')}`);
    else problems.push(...loaded.errors.map((e) => `workflow file ${(entry as { file: string }).file}: ${e}`));
  }
  const seen = new Set<string>();
  for (const def of defs) {
    if (seen.has(def.name)) problems.push(`workflow "${def.name}" is defined twice`);
    seen.add(def.name);
  }
  return { defs, problems };
}

/** A `{file}` entry's document (its `name` given over the file's), or undefined with the problem pushed. */
function readWorkflowFile(entry: { file: string; name?: string }, cwd: string, problems: string[]): unknown {
  const path = resolve(cwd, entry.file);
  try {
    const text = readFileSync(path, 'utf8');
    const doc: unknown = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    return entry.name !== undefined && isObject(doc) ? { ...doc, name: entry.name } : doc;
  } catch (err) {
    problems.push(`workflow file ${entry.file}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    return undefined;
  }
}

/**
 * A configured step asking for more instances at once than `limits.workflow.fan_out` (top-level steps, reference
 * §2.3): refused rather than silently clamped.
 */
export function checkFanOut(defs: readonly WorkflowDef[], cap: number): string[] {
  const problems: string[] = [];
  for (const def of defs)
    for (const step of Object.values(def.steps)) {
      const field = step.kind === 'batch' ? 'parallel' : step.kind === 'foreach' ? 'batch' : null;
      const asked = field === null ? undefined : step.fields[field];
      if (typeof asked === 'number' && asked > cap)
        problems.push(
          `workflow "${def.name}" step "${step.id}": ${field} ${asked} exceeds limits.workflow.fan_out (${cap}) — raise the limit or lower the step`,
        );
    }
  return problems;
}
