// Workflow `wait` steps across a SIGKILL of the daemon (producers reference §2.8 `wait`, §2.11; case P-7): a wait
// on an async subagent resumes in the next life and ends when the respawned child completes; a wait on a due time
// keeps the due time it had, measured from the first life. Neither wait is replayed as a new step.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { killAndRestart, startDaemon } from './daemon.js';
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
      sp: {kind: subagent, depends_on: s, mode: async, instruction: "count the letters"}
      w: {kind: wait, depends_on: sp, on: subagent, subagent: "{{steps.sp.output.handle}}", timeout: 60s}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.result}}"}
  - name: nap
    steps:
      s: {kind: once}
      w: {kind: wait, depends_on: s, on: deadline, timeout: 4s}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.waited_ms}}"}
`;
}

describe('wait steps across a crash', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  it('P-7: the subagent wait ends when the respawned child completes; the due time is kept', async () => {
    const dir = tempStateDir();
    const slow = await startScriptedModel({
      turns: [],
      match: [{ when_contains: SUB, delay_ms: 60_000, content: '7' }],
    });
    models.push(slow);
    const life1 = await startDaemon(dir, yaml(slow));
    await waitUntil(() => eventsNamed(life1, 'wait.armed').length === 2, 30_000, 'both waits armed');
    const fast = await startScriptedModel({ turns: [], match: [{ when_contains: SUB, content: '7' }] });
    models.push(fast);
    const life2 = await killAndRestart(life1, dir, yaml(fast));
    assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: both runs were waiting at the kill');
    try {
      await waitUntil(() => eventsNamed(life2, 'run.done').length === 2, 30_000, 'both runs ended in life 2');
      const done = eventsNamed(life2, 'run.done').map((e) => [e.workflow, e.status]);
      assert.deepEqual(done.sort(), [
        ['nap', 'completed'],
        ['w', 'completed'],
      ]);
      assert.deepEqual(
        eventsNamed(life2, 'subagent.respawn').map((e) => e.handle),
        ['sub-1'],
        'the async child respawned once',
      );
      assert.deepEqual(eventsNamed(life2, 'restore.step.replay'), [], 'a suspended wait is resumed, not replayed');
      assert.deepEqual(
        eventsNamed(life2, 'wait.resolved')
          .map((e) => [e.on, e.status])
          .sort(),
        [
          ['deadline', 'done'],
          ['subagent', 'done'],
        ],
      );
      assert.equal(eventsNamed(life2, 'run.start').length, 0, 'no second run');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    const outputs = life2.events.filter((e) => e.event === 'step.done' && e.step === 'f');
    assert.equal(outputs.length, 2);
    // The nap run's wait kept its first-life due time: life 2 armed no wait of its own (a wait armed afresh at the
    // restore logs wait.armed with a due time 4 s after it), and the wait resolved at or after life 1's due time.
    const armed = eventsNamed(life1, 'wait.armed').find((e) => e.on === 'deadline');
    assert.equal(typeof armed?.due_ms, 'number', 'premise: life 1 armed the deadline wait with its due time');
    assert.deepEqual(
      eventsNamed(life2, 'wait.armed').filter((e) => e.on === 'deadline'),
      [],
      'the deadline wait was not armed again',
    );
    const resolved = eventsNamed(life2, 'wait.resolved').find((e) => e.on === 'deadline');
    assert.ok(resolved && Date.parse(String(resolved.ts)) >= Number(armed?.due_ms), 'resolved on the first-life due');
  });
});
