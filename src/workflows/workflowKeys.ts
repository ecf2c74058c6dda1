// The `workflows:` config key (producers reference §2.1): a list of inline dialect-3 documents or `{name?, file}`
// entries. Inline documents are validated here; files are read and validated by loadWorkflowFiles at compile time.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Coerced, ValueKind } from '../config/kinds.js';
import type { WorkflowDef } from '../domain/workflow.js';
import { loadWorkflow } from './definitions.js';

/** An entry before files are read: a loaded definition, or a file still to load. */
export type WorkflowEntry = WorkflowDef | { file: string; name?: string };

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
  const loaded = loadWorkflow(raw);
  return loaded.ok ? { ok: true, value: loaded.def } : { ok: false, problem: loaded.errors.join('; ') };
}

/** `workflows`: a list; each problem is placed at its entry. Secrets stay verbatim for the step to resolve. */
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
      const names = out.map((e) => ('hash' in e ? e.name : null)).filter((n) => n !== null);
      const dup = names.find((n, i) => names.indexOf(n) !== i);
      return dup === undefined
        ? { ok: true, value: out }
        : { ok: false, problem: `workflow "${dup}" is defined twice` };
    },
    resolveSecretsIn: (value) => value,
  };
}

/** Reads the `{file}` entries (relative to `cwd`) into definitions; problems name the file and the workflow. */
export function loadWorkflowFiles(
  entries: readonly WorkflowEntry[],
  cwd: string,
): { defs: WorkflowDef[]; problems: string[] } {
  const defs: WorkflowDef[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    if ('hash' in entry) {
      defs.push(entry);
      continue;
    }
    const path = resolve(cwd, entry.file);
    let doc: unknown;
    try {
      const text = readFileSync(path, 'utf8');
      doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    } catch (err) {
      problems.push(
        `workflow file ${entry.file}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`,
      );
      continue;
    }
    if (entry.name !== undefined && isObject(doc)) doc = { ...doc, name: entry.name };
    const loaded = loadWorkflow(doc);
    if (loaded.ok) defs.push(loaded.def);
    else problems.push(...loaded.errors.map((e) => `workflow file ${entry.file}: ${e}`));
  }
  const seen = new Set<string>();
  for (const def of defs) {
    if (seen.has(def.name)) problems.push(`workflow "${def.name}" is defined twice`);
    seen.add(def.name);
  }
  return { defs, problems };
}
