// artifact.create|get|delete over the real engine and SQLite (producers reference §2.4; turn reference §11
// `artifact.*`): created from content or a step's output, read back whole, deleted; load errors for what is refused.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { around, openDesk, runToEnd, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());

const DOC = {
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    v: { kind: 'template', depends_on: 's', value: { total: 3 } },
    c: { kind: 'artifact.create', depends_on: 'v', name: 'report', from_step: 'v' },
    t: { kind: 'artifact.create', depends_on: 'c', name: 'note', content: 'hello', mime: 'text/markdown' },
    g: { kind: 'artifact.get', depends_on: 't', id: '{{steps.c.output.id}}' },
    d: { kind: 'artifact.delete', depends_on: 'g', id: '{{steps.c.output.id}}' },
    gone: { kind: 'artifact.get', depends_on: 'd', id: '{{steps.c.output.id}}', on_error: 'continue' },
    f: {
      kind: 'finish',
      depends_on: 'gone',
      output: {
        c: '{{steps.c.output}}',
        t: '{{steps.t.output}}',
        g: '{{steps.g.output}}',
        d: '{{steps.d.output}}',
        gone: '{{steps.gone.output}}',
      },
    },
  },
};

describe('artifact kinds', () => {
  it('create (from a step or content), get, delete; a get after the delete fails naming the id', async () => {
    const life = await openDesk(tmp.dir, [DOC]);
    try {
      const run = await runToEnd(life);
      assert.equal(run.status, 'completed', String(run.error));
      const out = run.output as Record<string, Record<string, unknown>>;
      const id = `${run.id}/c`;
      assert.equal(out.c?.id, id);
      assert.equal(out.c?.mime, 'application/json');
      assert.equal(out.c?.size, '{"total":3}'.length);
      assert.equal(out.c?.sha256, createHash('sha256').update('{"total":3}').digest('hex'));
      assert.deepEqual(out.t && { mime: out.t.mime, size: out.t.size }, { mime: 'text/markdown', size: 5 });
      assert.equal(out.g?.content, '{"total":3}');
      assert.equal(out.g?.name, 'report');
      assert.deepEqual(out.d, { ok: true, deleted: true });
      assert.deepEqual(out.gone, { error: `artifact.get: no artifact "${id}"` });
    } finally {
      await life.close();
    }
  });

  it('refuses sensitive (not built) and content with from_step', () => {
    const loaded = loadWorkflow(
      around({ kind: 'artifact.create', name: 'a', content: 'x', from_step: 's', sensitive: true }),
    );
    assert.deepEqual(loaded.ok ? [] : loaded.errors, [
      'workflow "w" step "x": artifact.create.sensitive is not built in this version; remove it',
      'workflow "w" step "x": artifact.create takes content or from_step, not both',
    ]);
  });
});
