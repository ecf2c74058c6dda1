// Workflow runs and definitions in the Store behaviour suite (storeBehaviour.ts), alike in every backend.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDefinition, WorkflowDef, WorkflowRun } from '../../../src/domain/workflow.js';
import type { Store } from '../../../src/store/store.js';

function run(over: Partial<WorkflowRun> = {}): WorkflowRun {
  return {
    id: 'run-1',
    workflow: 'triage',
    definition: { name: 'triage' } as unknown as WorkflowDef,
    status: 'running',
    startKey: 'evt-1',
    start: { node: 'start', payload: { n: 1 }, ts: 10 },
    inputs: {},
    vars: {},
    steps: {},
    principal: 'alice',
    conversation: null,
    deadlineMs: null,
    stepsRun: 0,
    output: null,
    error: null,
    created: 100,
    updated: 100,
    finished: null,
    ...over,
  };
}

const definition = (name: string, version: number, doc: Record<string, unknown> | null): StoredDefinition => ({
  name,
  version,
  document: doc,
  hash: doc === null ? null : `h${version}`,
  created: version,
});

export function describeWorkflows(current: () => Store): void {
  describe('workflows', () => {
    it('creates a run once: a replayed start key answers with the stored run', async () => {
      const { workflows } = current();
      const first = run();
      assert.deepEqual(await workflows.createRun(first), { run: first, created: true });
      const replay = await workflows.createRun(run({ id: 'run-2', vars: { other: true } }));
      assert.equal(replay.created, false);
      assert.deepEqual(replay.run, first);
      assert.equal(await workflows.getRun('run-2'), null);
      assert.equal((await workflows.createRun(run({ startKey: 'evt-9' }))).created, false, 'same id');
    });

    it('saves a run and lists live ones apart from ended ones, by created then id', async () => {
      const { workflows } = current();
      await workflows.createRun(run({ id: 'b', startKey: 'k-b', created: 200 }));
      await workflows.createRun(run({ id: 'a', startKey: 'k-a', created: 200 }));
      await workflows.createRun(run({ id: 'c', startKey: 'k-c', created: 50 }));
      await workflows.saveRun(run({ id: 'a', startKey: 'k-a', created: 200, status: 'completed', output: 'done' }));
      assert.deepEqual((await workflows.getRun('a'))?.output, 'done');
      assert.deepEqual(
        (await workflows.listRuns({})).map((r) => r.id),
        ['c', 'a', 'b'],
      );
      assert.deepEqual(
        (await workflows.listRuns({ live: true })).map((r) => r.id),
        ['c', 'b'],
      );
    });

    it('deletes terminal runs only, and a deleted run frees its start key', async () => {
      const { workflows } = current();
      await workflows.createRun(run({ id: 'done', startKey: 'k-done', status: 'completed' }));
      await workflows.createRun(run({ id: 'live', startKey: 'k-live' }));
      assert.equal(await workflows.deleteRuns(['done', 'live', 'unknown']), 1);
      assert.equal(await workflows.getRun('done'), null);
      assert.equal((await workflows.getRun('live'))?.id, 'live', 'a live run is never deleted');
      assert.equal((await workflows.createRun(run({ id: 'again', startKey: 'k-done' }))).created, true);
      assert.equal(await workflows.deleteRuns([]), 0);
    });

    it('lists the newest version of each definition by name, tombstones included', async () => {
      const { workflows } = current();
      await workflows.saveDefinition(definition('zeta', 1, { steps: 1 }));
      await workflows.saveDefinition(definition('alpha', 1, { steps: 1 }));
      await workflows.saveDefinition(definition('alpha', 2, { steps: 2 }));
      await workflows.saveDefinition(definition('zeta', 2, null));
      assert.deepEqual(await workflows.listDefinitions(), [
        definition('alpha', 2, { steps: 2 }),
        definition('zeta', 2, null),
      ]);
    });
  });
}
