// A timer row deleted between daemon lives (producers reference §4 P-21, second half): the restore finds what
// should have been stored and is not, logs `restore.timer.repaired` and arms it again — a run's sleep at the due
// time its run record keeps, a schedule from now — so the sleep ends and the schedule fires in the next life.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil, within } from '../integration/wait.js';
import { type Daemon, startDaemon } from './daemon.js';
import { eventsNamed, tempStateDir } from './harness.js';

const NAPPER = `
  - name: napper
    steps:
      s: {kind: once}
      nap: {kind: sleep, depends_on: s, duration: 3s}
      f: {kind: finish, depends_on: nap, output: "{{steps.nap.output}}"}`;
const TICK = `
  - name: tick
    steps:
      every: {kind: schedule, every: 2s}
      f: {kind: finish, depends_on: every}`;

function yaml(model: ScriptedModel, workflow: string): string {
  return `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: ${model.url}
workflows:${workflow}
`;
}

/** SIGKILLs `daemon` and deletes the timer rows `where` selects from its SQLite file; resolves with how many. */
async function killAndDelete(daemon: Daemon, dir: string, where: string): Promise<number> {
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
  daemon.child.kill('SIGKILL');
  await within(exited, 10_000, 'the killed daemon exits');
  const db = new Database(join(dir, 'agentd.db'));
  try {
    return db.prepare(`DELETE FROM timers WHERE ${where}`).run().changes;
  } finally {
    db.close();
  }
}

describe('timer rows lost between lives', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  it('P-21: a deleted sleep row is repaired at restore and the sleep ends at its stored due time', async () => {
    const dir = tempStateDir();
    const model = await startScriptedModel({ turns: [] });
    models.push(model);
    const life1 = await startDaemon(dir, yaml(model, NAPPER));
    await waitUntil(
      () => eventsNamed(life1, 'wait.armed').some((e) => e.step === 'nap'),
      20_000,
      'the nap step sleeps',
    );
    const armed = eventsNamed(life1, 'wait.armed').find((e) => e.step === 'nap');
    // The row is written just after the wait's commit (the store is locked while the daemon runs, so this is not
    // polled): the premise below checks a row was there to delete.
    await new Promise((r) => setTimeout(r, 500));
    const deleted = await killAndDelete(life1, dir, "kind = 'run_wake'");
    assert.equal(deleted, 1, 'premise: the run had one stored wake row');
    const life2 = await startDaemon(dir, yaml(model, NAPPER));
    try {
      await waitUntil(
        () => eventsNamed(life2, 'run.done').some((e) => e.workflow === 'napper'),
        20_000,
        'the napper run ends in life 2',
      );
      const repaired = eventsNamed(life2, 'restore.timer.repaired');
      assert.deepEqual(
        repaired.map((e) => [e.step, e.wait, e.due_ms]),
        [['nap', 'sleep', armed?.due_ms]],
      );
      const done = eventsNamed(life2, 'run.done').find((e) => e.workflow === 'napper');
      assert.equal(done?.status, 'completed');
      assert.deepEqual(eventsNamed(life2, 'restore.step.replay'), [], 'the sleep resumed, not replayed');
      const napped = eventsNamed(life2, 'step.done').find((e) => e.step === 'nap');
      assert.ok(napped && Date.parse(String(napped.ts)) >= Number(armed?.due_ms), 'ended on its stored due');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
  });

  it('a deleted schedule row is repaired at restore and the schedule fires in the next life', async () => {
    const dir = tempStateDir();
    const model = await startScriptedModel({ turns: [] });
    models.push(model);
    const life1 = await startDaemon(dir, yaml(model, TICK));
    await waitUntil(() => eventsNamed(life1, 'start.schedule.armed').length > 0, 20_000, 'the schedule is armed');
    assert.deepEqual(eventsNamed(life1, 'restore.timer.repaired'), [], 'a first arming is no repair');
    const deleted = await killAndDelete(life1, dir, "kind = 'schedule'");
    assert.equal(deleted, 1, 'premise: the schedule had one stored row');
    const life2 = await startDaemon(dir, yaml(model, TICK));
    try {
      await waitUntil(
        () => eventsNamed(life2, 'start.fired').some((e) => e.kind === 'schedule'),
        20_000,
        'the schedule fires in life 2',
      );
      assert.deepEqual(
        eventsNamed(life2, 'restore.timer.repaired').map((e) => [e.trigger, e.wait]),
        [['tick.every', 'schedule']],
      );
    } finally {
      assert.equal(await life2.stop(), 0);
    }
  });
});
