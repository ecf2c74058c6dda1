// artifact.create|get|delete over the real engine and SQLite (producers reference §2.4; turn reference §11
// `artifact.*`): created from content or a step's output, read back whole, deleted; load errors for what is refused.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { redact } from '../../../src/obs/log.js';
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

  it('a sensitive artifact: its content is redacted in events and errors and never enters the run record', async () => {
    const secret = 'sk-live-7c41e9d2aa';
    const doc = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'artifact.create', depends_on: 's', name: 'token', content: { token: secret }, sensitive: true },
        g: { kind: 'artifact.get', depends_on: 'c', id: '{{steps.c.output.id}}' },
        use: { kind: 'assign', depends_on: 'g', value: 'CEL: size(steps.g.output.content)' },
        leak: {
          kind: 'assert',
          depends_on: 'use',
          condition: 'CEL: false',
          message: 'leaked {{steps.g.output.content}}',
        },
        f: { kind: 'finish', depends_on: 'leak' },
      },
    };
    const life = await openDesk(`${tmp.dir}/sensitive`, [doc]);
    try {
      const run = await runToEnd(life);
      const content = JSON.stringify({ token: secret });
      assert.equal(run.steps['use']?.output, content.length, 'a later step read the content through');
      assert.equal(run.steps['c']?.output && (run.steps['c'].output as { sensitive?: boolean }).sensitive, true);
      const kept = await life.store.memory.get(`_artifacts/${run.id}/g/output.json`, Date.now());
      const keptText = (kept?.value as { content: string } | undefined)?.content ?? '';
      assert.ok(keptText.includes(secret), 'the get output is kept as an artifact');
      assert.deepEqual(run.steps['g']?.output, { $artifact: `${run.id}/g/output.json`, size: keptText.length });
      assert.equal(run.error, 'step "leak" failed: leaked [redacted]', 'the failure names the content redacted');
      const record = JSON.stringify(await life.store.workflows.getRun(run.id));
      const lines = JSON.stringify(life.events);

      assert.ok(!lines.includes(secret), 'the content is in an event');
      assert.ok(!JSON.stringify(run.steps['g']).includes(secret), 'the get step holds the content');
      // The definition holds it (it was written there); nothing the run did put it in the record again.
      assert.equal(record.split(secret).length - 1, 1, 'the run record holds the content outside its definition');
    } finally {
      await life.close();
    }
  });

  it("memory.* steps cannot read, list, forge or delete an artifact (agentd's own keys)", async () => {
    const doc = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'artifact.create', depends_on: 's', name: 't', content: 'TOPSECRET2', sensitive: true },
        l: { kind: 'memory.list', depends_on: 'c' },
        g: { kind: 'memory.get', depends_on: 'l', key: '_artifacts/{{steps.c.output.id}}' },
        f: { kind: 'finish', depends_on: 'g' },
      },
    };
    const life = await openDesk(`${tmp.dir}/reserved`, [doc]);
    try {
      const run = await runToEnd(life);
      const key = `_artifacts/${run.id}/c`;
      assert.deepEqual(run.steps['l']?.output, { keys: [], truncated: false });
      assert.equal(
        run.error,
        `step "g" failed: memory.get: key "${key}" is under "_artifacts/", which agentd keeps for itself`,
      );
      const record = JSON.stringify(await life.store.workflows.getRun(run.id));
      assert.equal(record.split('TOPSECRET2').length - 1, 1, 'the run record holds the content outside its definition');
    } finally {
      await life.close();
    }
  });

  it('a finish reason quoting sensitive content is stored redacted', async () => {
    const doc = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'artifact.create', depends_on: 's', name: 't', content: 'TOPSECRET4', sensitive: true },
        g: { kind: 'artifact.get', depends_on: 'c', id: '{{steps.c.output.id}}' },
        f: { kind: 'finish', depends_on: 'g', status: 'failed', reason: 'gave up on {{steps.g.output.content}}' },
      },
    };
    const life = await openDesk(`${tmp.dir}/reason`, [doc]);
    try {
      const run = await runToEnd(life);
      assert.equal(run.error, 'gave up on [redacted]');
      const record = JSON.stringify(await life.store.workflows.getRun(run.id));
      assert.equal(record.split('TOPSECRET4').length - 1, 1, 'the run record holds the content outside its definition');
    } finally {
      await life.close();
    }
  });

  it('registers the whole sensitive content, not each string inside its JSON', async () => {
    const doc = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'artifact.create', depends_on: 's', name: 't', content: { user: 'alicia', env: 'prod-eu' } },
        f: { kind: 'finish', depends_on: 'c' },
      },
    };
    const sensitive = { ...doc, steps: { ...doc.steps, c: { ...doc.steps.c, sensitive: true } } };
    const life = await openDesk(`${tmp.dir}/whole`, [sensitive]);
    try {
      assert.equal((await runToEnd(life)).status, 'completed');
      assert.equal(redact('user alicia on prod-eu'), 'user alicia on prod-eu', 'a part is not redacted');
      assert.equal(redact('x {"user":"alicia","env":"prod-eu"} y'), 'x [redacted] y');
      assert.equal(redact(JSON.stringify({ c: '{"user":"alicia","env":"prod-eu"}' })), '{"c":"[redacted]"}');
    } finally {
      await life.close();
    }
  });

  it('refuses a non-boolean sensitive and content with from_step', () => {
    const loaded = loadWorkflow(
      around({ kind: 'artifact.create', name: 'a', content: 'x', from_step: 's', sensitive: 'yes' }),
    );
    assert.deepEqual(loaded.ok ? [] : loaded.errors, [
      'workflow "w" step "x": artifact.create.sensitive must be true or false',
      'workflow "w" step "x": artifact.create takes content or from_step, not both',
    ]);
  });
});
