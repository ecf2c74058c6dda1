// The `workflow` (child run) and `join` kinds over the real engine and SQLite (producers reference §2.8): a sync
// child's end is the step output, async children are joined, a cancel cascades, and a reopen resumes the wait.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type DeskLife, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const CHILD = {
  name: 'child',
  inputs: { schema: { type: 'object', properties: { n: { type: 'integer' }, nap: { type: 'string' } } } },
  steps: {
    s: { kind: 'manual' },
    nap: { kind: 'sleep', depends_on: 's', duration: '{{inputs.nap | "1ms"}}' },
    f: { kind: 'finish', depends_on: 'nap', output: 'CEL: inputs.n * 10' },
  },
};

function parent(step: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'w',
    steps: {
      s: { kind: 'manual' },
      x: { depends_on: 's', ...step },
      ...extra,
      f: { kind: 'finish', depends_on: Object.keys(extra).at(-1) ?? 'x', output: '{{last}}' },
    },
  };
}

async function start(life: DeskLife, workflow = 'w'): Promise<string> {
  const got = await life.desk.start({ workflow, inputs: {}, startKey: `k${++n}`, principal: null, conversation: null });
  assert.ok(got.ok, got.ok ? '' : got.error);
  return got.run.id;
}

describe('the workflow kind', () => {
  it('sync: the step waits for the child and outputs {run, status, output, error}', async () => {
    const life = await openDesk(freshDir(), [CHILD, parent({ kind: 'workflow', name: 'child', inputs: { n: 2 } })]);
    const run = await settled(life, await start(life));
    assert.equal(run.status, 'completed', String(run.error));
    const out = run.output as { run: string; status: string; output: unknown; error: unknown };
    assert.deepEqual({ ...out, run: '' }, { run: '', status: 'completed', output: 20, error: null });
    const child = await life.desk.run(out.run);
    assert.deepEqual(child?.parent, { run: run.id, step: 'x', cascade: true, sync: true });
    await life.close();
  });

  it('async children joined by run id; an unknown handle counts as ended', async () => {
    const life = await openDesk(freshDir(), [
      CHILD,
      parent(
        { kind: 'workflow', name: 'child', mode: 'async', inputs: { n: 3 } },
        { j: { kind: 'join', depends_on: 'x', handles: ['{{steps.x.output.run}}', 'nobody'] } },
      ),
    ]);
    const run = await settled(life, await start(life));
    assert.equal(run.status, 'completed', String(run.error));
    const spawned = run.steps['x']?.output as { run: string; mode: string } | undefined;
    const child = spawned?.run ?? '';
    assert.equal(spawned?.mode, 'async');
    assert.deepEqual(run.output, {
      [child]: { kind: 'run', status: 'completed', output: 30, error: null },
      nobody: { error: 'unknown handle' },
    });
    await life.close();
  });

  it('join: a timeout fails the step, or with partials gives the results so far', async () => {
    const slow = { kind: 'workflow', name: 'child', mode: 'async', inputs: { n: 1, nap: '5s' } };
    const join = (partials: boolean) => ({
      j: { kind: 'join', depends_on: 'x', handles: ['{{steps.x.output.run}}'], timeout: '150ms', partials },
    });
    const life = await openDesk(freshDir(), [CHILD, parent(slow, join(false))]);
    const failedRun = await settled(life, await start(life));
    assert.equal(failedRun.error, 'step "j" failed: join timed out');
    await life.close();
    const again = await openDesk(freshDir(), [CHILD, parent(slow, join(true))]);
    const partial = await settled(again, await start(again));
    assert.deepEqual(partial.output, { partial: true, results: {} });
    await again.close();
  });

  it('a cancelled parent cancels its child unless cascade is false; version pins the hash', async () => {
    for (const cascade of [true, false]) {
      const step = { kind: 'workflow', name: 'child', cascade, inputs: { n: 1, nap: '5s' } };
      const life = await openDesk(freshDir(), [CHILD, parent(step)]);
      const id = await start(life);
      let childId = '';
      const deadline = Date.now() + 5_000;
      while (childId === '' && Date.now() < deadline) {
        childId = life.desk.engine.live().find((r) => r.parent?.run === id)?.id ?? '';
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.notEqual(childId, '', 'premise: the child started');
      await life.desk.engine.cancel(id, 'by test');
      await new Promise((r) => setTimeout(r, 50));
      const child = await life.desk.run(childId);
      if (cascade) assert.deepEqual([child?.status, child?.error], ['cancelled', 'parent run cancelled']);
      else assert.equal(child?.status, 'running');
      await life.close();
    }
    const pinned = await openDesk(freshDir(), [CHILD, parent({ kind: 'workflow', name: 'child', version: 'ffff' })]);
    const run = await settled(pinned, await start(pinned));
    assert.match(
      String(run.error),
      /^step "x" failed: workflow "child" hash [0-9a-f]{12} does not match the pinned version ffff$/,
    );
    await pinned.close();
  });

  it('a sync child across a reopen: the next life watches the child again and the parent completes once', async () => {
    const dir = freshDir();
    const docs = [CHILD, parent({ kind: 'workflow', name: 'child', inputs: { n: 4, nap: '400ms' } })];
    const first = await openDesk(dir, docs);
    const id = await start(first);
    const deadline = Date.now() + 5_000;
    while (first.desk.engine.get(id)?.steps['x']?.status !== 'suspended' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(first.desk.engine.get(id)?.steps['x']?.status, 'suspended', 'premise: waiting on the child');
    await first.close();
    const second = await openDesk(dir, docs);
    const run = await settled(second, id);
    assert.equal(run.status, 'completed', String(run.error));
    assert.equal((run.output as { output: unknown }).output, 40);
    assert.equal(second.events.filter((e) => e.event === 'run.start').length, 0, 'no run started twice');
    await second.close();
  });

  it('a templated mode is rendered: sync is waited for and cancelled with its parent; an unknown one fails', async () => {
    const templated = {
      name: 'tm',
      inputs: { schema: { type: 'object', properties: { mode: {}, nap: {}, hold: {} } } },
      steps: {
        s: { kind: 'manual' },
        x: {
          kind: 'workflow',
          depends_on: 's',
          name: 'child',
          mode: '{{inputs.mode}}',
          inputs: { n: 2, nap: '{{inputs.nap}}' },
        },
        z: { kind: 'sleep', depends_on: 's', duration: '{{inputs.hold}}' },
        f: { kind: 'finish', depends_on: ['x'], output: '{{steps.x.output}}' },
        early: { kind: 'finish', depends_on: 'z', output: 'early' },
      },
    };
    const life = await openDesk(freshDir(), [CHILD, templated]);
    const begin = async (inputs: Record<string, unknown>): Promise<string> => {
      const got = await life.desk.start({
        workflow: 'tm',
        inputs,
        startKey: `k${++n}`,
        principal: null,
        conversation: null,
      });
      assert.ok(got.ok, got.ok ? '' : got.error);
      return got.run.id;
    };
    try {
      // Waited for: the child's end is the output (z sleeps longer than the child naps).
      const waited = await settled(life, await begin({ mode: 'sync', nap: '1ms', hold: '20s' }), 10_000);
      assert.deepEqual(waited.output && { ...(waited.output as object), run: '' }, {
        run: '',
        status: 'completed',
        output: 20,
        error: null,
      });
      // Its parent ends first (the `early` finish): the sync child goes with it.
      const id = await begin({ mode: 'sync', nap: '30s', hold: '300ms' });
      const ended = await settled(life, id, 10_000);
      assert.equal(ended.output, 'early', 'premise: the early finish ended the parent');
      const childId = (await life.store.workflows.listRuns({})).find((r) => r.parent?.run === id)?.id;
      assert.ok(childId, 'premise: the child was started');
      const child = await settled(life, childId, 10_000);
      assert.equal(child.status, 'cancelled');
      assert.equal(child.error, 'its parent run ended');
      const bad = await settled(life, await begin({ mode: 'later', nap: '1ms', hold: '20s' }), 10_000);
      assert.equal(bad.error, 'step "x" failed: workflow: mode rendered "later", want one of sync|async|detached');
    } finally {
      await life.close();
    }
  });
});
