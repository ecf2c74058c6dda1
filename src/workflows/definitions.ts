// Loading definitions: a document is parsed (definitionParse.ts) and given its identity hash, SHA-256 over the
// canonical JSON of the document with object keys sorted (producers reference §2.2).
import { createHash } from 'node:crypto';
import type { WorkflowDef } from '../domain/workflow.js';
import { parseWorkflowDocument } from './definitionParse.js';

export type LoadedWorkflow = { ok: true; def: WorkflowDef } | { ok: false; errors: string[] };

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 hex of the document's canonical JSON. */
export function definitionHash(doc: unknown): string {
  return createHash('sha256').update(canonical(doc)).digest('hex');
}

/** Parses and hashes one document. */
export function loadWorkflow(doc: unknown): LoadedWorkflow {
  const parsed = parseWorkflowDocument(doc);
  return parsed.ok ? { ok: true, def: { ...parsed.def, hash: definitionHash(doc) } } : parsed;
}
