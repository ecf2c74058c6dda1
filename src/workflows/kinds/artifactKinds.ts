// `artifact.create|get|delete` (producers reference §2.4; turn reference §11 `artifact.*` → `{id, name, size,
// sha256}`): named blobs a run keeps beside its data. Minimal here: each is a record of the store's memory port
// under `_artifacts/<id>` (so every store backend keeps it), its id derived from the run and step, so a retried or
// replayed create writes the same artifact once. A `sensitive` one's content is registered with the process
// redactor (events, errors, stored outcomes show `[redacted]`) and never enters a run record: `artifact.get` of it
// outputs a reference the later steps' templates read through (stepSpill.ts), like a spilled output.
import { createHash } from 'node:crypto';
import { registerSecret } from '../../obs/log.js';
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

/** Where artifacts live in memory (a reserved prefix, as agentd keeps `_workflows/` and `_cache/`). */
export const ARTIFACT_PREFIX = '_artifacts/';

interface StoredArtifact {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  content: string;
  run: string;
  step: string;
  created: number;
  sensitive?: boolean;
}

const idOf = (ctx: StepContext): string => String(ctx.spec['id'] ?? '');

/** The content as text: a string as is, another value as JSON; `from_step` takes that step's output. */
function contentOf(ctx: StepContext): { text: string; json: boolean } | string {
  const from = ctx.spec['from_step'];
  if (from !== undefined) {
    const steps = ctx.scope['steps'] as Record<string, { status?: string; output?: unknown }> | undefined;
    const step = steps?.[String(from)];
    if (step?.status !== 'done') return `artifact.create: from_step "${String(from)}" has no output (not done)`;
    return contentOf({ ...ctx, spec: { content: step.output ?? null } });
  }
  const content = ctx.spec['content'] ?? '';
  return typeof content === 'string' ? { text: content, json: false } : { text: JSON.stringify(content), json: true };
}

/** Writes one artifact record; answers what a step outputs about it. */
export async function keepArtifact(
  memory: StepContext['ports']['memory'],
  a: {
    id: string;
    name: string;
    mime: string;
    text: string;
    run: string;
    step: string;
    now: number;
    sensitive?: boolean;
  },
): Promise<{ id: string; name: string; mime: string; size: number; sha256: string; sensitive?: true }> {
  const size = Buffer.byteLength(a.text);
  const sha256 = createHash('sha256').update(a.text).digest('hex');
  const record: StoredArtifact = {
    ...{ id: a.id, name: a.name, mime: a.mime, size, sha256, content: a.text },
    ...{ run: a.run, step: a.step, created: a.now },
    ...(a.sensitive ? { sensitive: true } : {}),
  };
  if (a.sensitive) redactContent(a.text);
  await memory.set({ key: ARTIFACT_PREFIX + a.id, value: record, expires: null, updated: a.now });
  return { id: a.id, name: a.name, mime: a.mime, size, sha256, ...(a.sensitive ? { sensitive: true as const } : {}) };
}

/**
 * Registers a sensitive content with the redactor: the whole text and its JSON-escaped form (as an event or record
 * line quotes it). Not each string inside a JSON content: short common values (`alice`, `prod`) would read
 * `[redacted]` everywhere for the rest of the process.
 */
function redactContent(text: string): void {
  registerSecret(text);
  registerSecret(JSON.stringify(text).slice(1, -1));
}

/** The content of artifact `id`, or null when there is none. */
export async function artifactContent(memory: StepContext['ports']['memory'], id: string, now: number) {
  const entry = await memory.get(ARTIFACT_PREFIX + id, now);
  if (entry === null) return null;
  const stored = entry.value as StoredArtifact;
  // After a restart the redactor starts empty: a sensitive content read back is registered again.
  if (stored.sensitive) redactContent(stored.content);
  return stored.content;
}

async function create(ctx: StepContext): Promise<StepResult> {
  const name = String(ctx.spec['name'] ?? '');
  if (name === '') return failed('artifact.create: name must be a non-empty string');
  const content = contentOf(ctx);
  if (typeof content === 'string') return failed(content);
  const id = `${ctx.run.id}/${ctx.step.id}`;
  const mime =
    typeof ctx.spec['mime'] === 'string' ? ctx.spec['mime'] : content.json ? 'application/json' : 'text/plain';
  const text = content.text;
  const at = { run: ctx.run.id, step: ctx.step.id, now: ctx.now, sensitive: ctx.spec['sensitive'] === true };
  return done(await keepArtifact(ctx.ports.memory, { id, name, mime, text, ...at }));
}

async function get(ctx: StepContext): Promise<StepResult> {
  const id = idOf(ctx);
  const entry = id === '' ? null : await ctx.ports.memory.get(ARTIFACT_PREFIX + id, ctx.now);
  if (entry === null) return failed(`artifact.get: no artifact "${id}"`);
  const { run: _run, step: _step, ...artifact } = entry.value as StoredArtifact;
  if (!artifact.sensitive) return done(artifact);
  // The run record holds a reference; the value lives in a sensitive artifact the templates read through.
  const text = JSON.stringify(artifact);
  const out = `${ctx.run.id}/${ctx.step.id}/output.json`;
  const at = { run: ctx.run.id, step: ctx.step.id, now: ctx.now, sensitive: true };
  const kept = await keepArtifact(ctx.ports.memory, {
    id: out,
    name: 'output.json',
    mime: 'application/json',
    text,
    ...at,
  });
  return { type: 'done', output: { $artifact: out, size: kept.size }, spilled: { id: out, size: kept.size } };
}

async function remove(ctx: StepContext): Promise<StepResult> {
  const id = idOf(ctx);
  if (id === '') return failed('artifact.delete: id must be a non-empty string');
  return done({ ok: true, deleted: await ctx.ports.memory.delete(ARTIFACT_PREFIX + id) });
}

export const ARTIFACT_KINDS: readonly NodeKind[] = [
  {
    name: 'artifact.create',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Keeps `content` (a string as is, any other value as JSON) or the output of step `from_step` as a named artifact, id `<run>/<step>` (a retry or a replay after a restart writes the same one). Output `{id, name, mime, size, sha256}`. Stored as the memory record `_artifacts/<id>` (any store backend). `sensitive: true`: the content is registered with the redactor (an event, error, stored outcome or transcript that carries the whole content shows `[redacted]`; registered again when read after a restart; a single string inside a JSON content is not registered on its own) and the output says `sensitive: true`; an `artifact.get` of it never puts the content in the run record (see `artifact.get`). The step that produced a `from_step` source keeps its own output in the record: make sensitive data with `content` where you can.',
    fields: {
      name: { required: true, doc: 'The artifact name.' },
      mime: { doc: 'Its media type (default `text/plain` for a string, `application/json` otherwise).' },
      content: { doc: 'The content (templates).' },
      from_step: { doc: 'A step id (a sibling in a body) whose output is the content.' },
      sensitive: { doc: 'true: redacted wherever text leaves the process; never in a run record when read.' },
    },
    check: (f) => [
      ...(f['sensitive'] !== undefined && typeof f['sensitive'] !== 'boolean'
        ? ['artifact.create.sensitive must be true or false']
        : []),
      ...(f['content'] !== undefined && f['from_step'] !== undefined
        ? ['artifact.create takes content or from_step, not both']
        : []),
    ],
    run: create,
  },
  {
    name: 'artifact.get',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Reads artifact `id`: output `{id, name, mime, size, sha256, content, created}`; unknown ⇒ `artifact.get: no artifact "<id>"`. A sensitive artifact\'s output (with `sensitive: true`) is kept as the sensitive artifact `<run>/<step>/output.json` and the run record, `workflow.status` and the events hold only `{$artifact, size}` (`step.output.artifact`); later steps\' templates and CEL read the value through it.',
    fields: { id: { required: true, doc: 'The artifact id (e.g. `{{steps.save.output.id}}`).' } },
    run: get,
  },
  {
    name: 'artifact.delete',
    category: 'data',
    implemented: true,
    effect: true,
    doc: 'Deletes artifact `id`. Output `{ok: true, deleted}` (`deleted` false when there was none).',
    fields: { id: { required: true, doc: 'The artifact id.' } },
    run: remove,
  },
];
