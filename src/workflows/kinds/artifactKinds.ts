// `artifact.create|get|delete` (producers reference §2.4; turn reference §11 `artifact.*` → `{id, name, size,
// sha256}`): named blobs a run keeps beside its data. Minimal here: each is a record of the store's memory port
// under `_artifacts/<id>` (so every store backend keeps it), its id derived from the run and step, so a retried or
// replayed create writes the same artifact once. `sensitive` is refused at load (nothing redacts one yet).
import { createHash } from 'node:crypto';
import { done, failed, type NodeKind, type StepContext, type StepResult, unbuiltFieldProblems } from '../nodeKind.js';

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

async function create(ctx: StepContext): Promise<StepResult> {
  const name = String(ctx.spec['name'] ?? '');
  if (name === '') return failed('artifact.create: name must be a non-empty string');
  const content = contentOf(ctx);
  if (typeof content === 'string') return failed(content);
  const id = `${ctx.run.id}/${ctx.step.id}`;
  const mime =
    typeof ctx.spec['mime'] === 'string' ? ctx.spec['mime'] : content.json ? 'application/json' : 'text/plain';
  const size = Buffer.byteLength(content.text);
  const sha256 = createHash('sha256').update(content.text).digest('hex');
  const record: StoredArtifact = {
    ...{ id, name, mime, size, sha256, content: content.text },
    ...{ run: ctx.run.id, step: ctx.step.id, created: ctx.now },
  };
  await ctx.ports.memory.set({ key: ARTIFACT_PREFIX + id, value: record, expires: null, updated: ctx.now });
  return done({ id, name, mime, size, sha256 });
}

async function get(ctx: StepContext): Promise<StepResult> {
  const id = idOf(ctx);
  const entry = id === '' ? null : await ctx.ports.memory.get(ARTIFACT_PREFIX + id, ctx.now);
  if (entry === null) return failed(`artifact.get: no artifact "${id}"`);
  const { run: _run, step: _step, ...artifact } = entry.value as StoredArtifact;
  return done(artifact);
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
    doc: 'Keeps `content` (a string as is, any other value as JSON) or the output of step `from_step` as a named artifact, id `<run>/<step>` (a retry or a replay after a restart writes the same one). Output `{id, name, mime, size, sha256}`. Stored as the memory record `_artifacts/<id>` (any store backend). `sensitive` is refused at load: nothing redacts an artifact yet.',
    fields: {
      name: { required: true, doc: 'The artifact name.' },
      mime: { doc: 'Its media type (default `text/plain` for a string, `application/json` otherwise).' },
      content: { doc: 'The content (templates).' },
      from_step: { doc: 'A step id (a sibling in a body) whose output is the content.' },
      sensitive: { doc: 'Refused at load (not built).' },
    },
    check: (f) => [
      ...unbuiltFieldProblems('artifact.create', f, ['sensitive']),
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
    doc: 'Reads artifact `id`: output `{id, name, mime, size, sha256, content, created}`; unknown ⇒ `artifact.get: no artifact "<id>"`.',
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
