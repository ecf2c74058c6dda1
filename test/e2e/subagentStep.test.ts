// A workflow `subagent` step across a SIGKILL of the daemon (P-7 in a workflow's shape; producers reference §2.11,
// §1.12, §5 items 2, 11): the next life respawns the sync child once (attempt 2), the replayed step finds it by its
// call key instead of spawning a second one, and the run completes once with the child's answer; the detached
// sibling is not respawned and is failed with a reason (agentd leaves it running forever).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil, within } from '../integration/wait.js';
import { startDaemon } from './daemon.js';
import { eventsNamed, tempStateDir } from './harness.js';

const SUB = 'You are a subagent of';

function yaml(model: ScriptedModel): string {
  return `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: ${model.url}
workflows:
  - name: w
    steps:
      s: {kind: once}
      dt: {kind: subagent, depends_on: s, mode: detached, instruction: "watch in the background"}
      sub: {kind: subagent, depends_on: s, instruction: "count the letters"}
      f: {kind: finish, depends_on: [dt, sub], output: "{{steps.sub.output.result}}"}
`;
}

describe('a subagent step across a crash', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  it('resumes the step on the same child: one spawn, one respawn, the run completes once', async () => {
    const dir = tempStateDir();
    const slow = await startScriptedModel({
      turns: [],
      match: [{ when_contains: SUB, delay_ms: 60_000, content: '7' }],
    });
    models.push(slow);
    const life1 = await startDaemon(dir, yaml(slow));
    const spawned = () => eventsNamed(life1, 'subagent.spawn').map((e) => [e.handle, e.mode]);
    await waitUntil(() => spawned().length === 2, 30_000, 'both steps spawned their children');
    assert.deepEqual(spawned(), [
      ['sub-1', 'detached'],
      ['sub-2', 'sync'],
    ]);
    // Steps run side by side: the detached step's end is committed (logged after its save) before the kill, so only
    // the sync step is in flight.
    const dtDone = () => eventsNamed(life1, 'step.done').some((e) => e.step === 'dt');
    await waitUntil(dtDone, 30_000, 'the detached step committed done');
    const exited = new Promise((resolve) => life1.child.once('exit', resolve));
    life1.child.kill('SIGKILL');
    await within(exited, 10_000, 'the killed daemon exits');
    assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was mid-step at the kill');

    const fast = await startScriptedModel({ turns: [], match: [{ when_contains: SUB, content: '7' }] });
    models.push(fast);
    const life2 = await startDaemon(dir, yaml(fast));
    try {
      await waitUntil(() => eventsNamed(life2, 'run.done').length > 0, 30_000, 'the run ended in life 2');
      assert.deepEqual(
        eventsNamed(life2, 'run.done').map((e) => e.status),
        ['completed'],
      );
      assert.deepEqual(
        eventsNamed(life2, 'subagent.respawn').map((e) => [e.handle, e.attempt]),
        [['sub-2', 2]],
      );
      // Keyed by the bare attempt (2 after the replay), the step missed sub-2 and spawned sub-3 here.
      assert.equal(eventsNamed(life2, 'subagent.spawn').length, 0, 'the replayed step found its child');
      assert.deepEqual(
        eventsNamed(life2, 'restore.step.replay').map((e) => e.step),
        ['sub'],
      );
      assert.equal(eventsNamed(life2, 'run.start').length, 0, 'no second run');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const records = await store.subagents.list();
      assert.deepEqual(
        records.map((r) => [r.handle, r.status, r.attempt]),
        [
          ['sub-1', 'failed', 1],
          ['sub-2', 'completed', 2],
        ],
      );
      assert.match(String(records[0]?.error), /not respawned/);
      const runs = await store.workflows.listRuns({});
      assert.deepEqual(
        runs.map((r) => [r.status, r.output]),
        [['completed', 7]],
      );
    } finally {
      await store.close();
    }
  });
});
