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

  /**
   * Life 1 sleeps in `nap` and is SIGKILLed, the timer rows `where` selects are deleted, life 2 runs the napper run
   * to its end; `check` reads life 2 before it is stopped. Resolves with how many rows were deleted.
   */
  async function napAcrossKill(where: string, check: (life2: Daemon, dueMs: number) => void): Promise<number> {
    const dir = tempStateDir();
    const model = await startScriptedModel({ turns: [] });
    models.push(model);
    const life1 = await startDaemon(dir, yaml(model, NAPPER));
    await waitUntil(() => eventsNamed(life1, 'wait.armed').some((e) => e.step === 'nap'), 20_000, 'nap sleeps');
    const armed = eventsNamed(life1, 'wait.armed').find((e) => e.step === 'nap');
    // The row is written just after the wait's commit (the store is locked while the daemon runs, so this is not
    // polled): the callers' premise checks what was there to delete.
    await new Promise((r) => setTimeout(r, 500));
    const deleted = await killAndDelete(life1, dir, where);
    const life2 = await startDaemon(dir, yaml(model, NAPPER));
    try {
      await waitUntil(
        () => eventsNamed(life2, 'run.done').some((e) => e.workflow === 'napper'),
        20_000,
        'the napper run ends in life 2',
      );
      assert.equal(eventsNamed(life2, 'run.done')[0]?.status, 'completed');
      assert.deepEqual(eventsNamed(life2, 'restore.step.replay'), [], 'the sleep resumed, not replayed');
      const napped = eventsNamed(life2, 'step.done').find((e) => e.step === 'nap');
      assert.ok(napped && Date.parse(String(napped.ts)) >= Number(armed?.due_ms), 'ended on its stored due');
      check(life2, Number(armed?.due_ms));
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    return deleted;
  }

  it('P-21: a deleted sleep row is repaired at restore and the sleep ends at its stored due time', async () => {
    const deleted = await napAcrossKill("kind = 'run_wake'", (life2, due) =>
      assert.deepEqual(
        eventsNamed(life2, 'restore.timer.repaired').map((e) => [e.step, e.wait, e.due_ms]),
        [['nap', 'sleep', due]],
      ),
    );
    assert.equal(deleted, 1, 'premise: the run had one stored wake row');
  });

  it('P-21: with its row kept, a sleep across a SIGKILL ends at its first-life due time, not run again', async () => {
    const deleted = await napAcrossKill('0', (life2) => {
      assert.deepEqual(eventsNamed(life2, 'restore.timer.repaired'), [], 'nothing to repair');
      assert.deepEqual(eventsNamed(life2, 'wait.armed'), [], 'not armed again');
    });
    assert.equal(deleted, 0);
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
