// A child run whose cancel was lost with the daemon's life (producers reference §2.8 race, §2.10): a lost race
// branch's sync child is cancelled in memory after the parent's commit; a kill between the two, or a parent ended
// while the daemon was down, leaves it live. The next life's restore cancels it from the records alone.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { waitUntil } from '../wait.js';
import { around, type DeskLife, named, openDesk, runToEnd, SLOW, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const DOCS = [
  SLOW,
  around({
    kind: 'race',
    branches: {
      direct: { c: { kind: 'workflow', name: 'slow' } },
      quick: { nap: { kind: 'sleep', duration: '400ms' }, v: { kind: 'template', depends_on: 'nap', value: 7 } },
    },
  }),
];

async function startParent(life: DeskLife): Promise<string> {
  const got = await life.desk.start({
    workflow: 'w',
    inputs: {},
    startKey: `k${++n}`,
    principal: null,
    conversation: null,
  });
  if (!got.ok) throw new Error(got.error);
  return got.run.id;
}

const childOf = async (life: DeskLife): Promise<Readonly<WorkflowRun> | undefined> =>
  (await life.store.workflows.listRuns({})).find((r) => r.workflow === 'slow');

describe('restore cancels child runs their parent no longer wants', () => {
  it('a lost race branch: killed after the parent saved the win, before the child was cancelled', async () => {
    const dir = freshDir();
    const first = await openDesk(dir, DOCS);
    let parentId = '';
    try {
      // The kill window: the commit that drops the branch is stored, then the life ends before the in-memory cancel.
      const port = first.store.workflows;
      const save = port.saveRun.bind(port);
      let killed = false;
      port.saveRun = async (run) => {
        if (killed) return;
        await save(run);
        if (run.workflow !== 'w' || run.steps['x']?.status !== 'done') return;
        killed = true;
        throw new Error('killed between the save and the cancel');
      };
      parentId = await startParent(first);
      await waitUntil(() => killed, 5_000, 'the race was won and saved');
      const child = await childOf(first);
      assert.equal(child?.status, 'running', 'premise: the lost branch child outlived the life');
    } finally {
      await first.close();
    }
    const second = await openDesk(dir, DOCS);
    try {
      const child = await childOf(second);
      assert.ok(child);
      const ended = await settled(second, child.id);
      assert.deepEqual([ended.status, ended.error], ['cancelled', 'its parent step "x{direct}.c" was cancelled']);
      const logged = named(second.events, 'restore.child.cancelled');
      assert.deepEqual(
        logged.map((e) => [e.run, e.parent, e.step, e.reason]),
        [[child.id, parentId, 'x{direct}.c', 'its parent step "x{direct}.c" was cancelled']],
      );
      const parent = await settled(second, parentId);
      assert.deepEqual([parent.status, parent.output], ['completed', { winner: 'quick', output: 7 }]);
    } finally {
      await second.close();
    }
  });

  it('a parent run that ended while its sync child was live', async () => {
    const dir = freshDir();
    const first = await openDesk(dir, DOCS);
    let parentId = '';
    try {
      parentId = await startParent(first);
      await waitUntil(() => first.desk.engine.live().some((r) => r.workflow === 'slow'), 5_000, 'the child started');
    } finally {
      await first.close();
    }
    // The parent's end stored, its children's cancel not made (it failed in the same commit, the life then ended).
    const store = new SqliteStore(dir);
    const parent = (await store.workflows.getRun(parentId)) as WorkflowRun;
    await store.workflows.saveRun({ ...parent, status: 'failed', error: 'ended elsewhere', finished: Date.now() });
    await store.close();
    const second = await openDesk(dir, DOCS);
    try {
      const child = await childOf(second);
      assert.ok(child);
      const ended = await settled(second, child.id);
      assert.deepEqual([ended.status, ended.error], ['cancelled', 'its parent run ended']);
    } finally {
      await second.close();
    }
  });

  it('in one life: a parent that fails while its sync child runs cancels the child', async () => {
    const failing = {
      name: 'p',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'workflow', depends_on: 's', name: 'slow' },
        nap: { kind: 'sleep', depends_on: 's', duration: '300ms' },
        boom: { kind: 'fail', depends_on: 'nap' },
        f: { kind: 'finish', depends_on: ['c', 'boom'] },
      },
    };
    const life = await openDesk(freshDir(), [SLOW, failing]);
    try {
      const parent = await runToEnd(life, 'p', `k${++n}`);
      assert.equal(parent.status, 'failed');
      const child = await childOf(life);
      assert.ok(child, 'premise: the child started before the parent failed');
      const ended = await settled(life, child.id);
      assert.deepEqual([ended.status, ended.error], ['cancelled', 'its parent run ended']);
    } finally {
      await life.close();
    }
  });
});
