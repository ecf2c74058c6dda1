// Fired keys are pruned by retention (issue 17 item 5): at start, the daemon deletes the finished runs that
// recurring triggers started more than 7 days ago, and with them their exactly-once start keys, keeping a loop's
// newest run (its count) and every run no trigger started.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { WorkflowDef, WorkflowRun } from '../../../src/domain/workflow.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { waitUntil } from '../wait.js';
import { daemon } from './startRig.js';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'agentd-firedkeys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(id: string, startKey: string, ageDays: number): WorkflowRun {
  const ended = Date.now() - ageDays * DAY;
  return {
    ...{ id, workflow: 'w', definition: { name: 'w' } as unknown as WorkflowDef, status: 'completed', startKey },
    ...{ start: { node: 's', payload: null, ts: ended }, inputs: {}, vars: {}, steps: {}, principal: null },
    ...{ conversation: null, deadlineMs: null, stepsRun: 0, output: null, error: null },
    ...{ created: ended, updated: ended, finished: ended },
  };
}

describe('fired keys', () => {
  it('are pruned at start past 7 days: old trigger runs go, a loop keeps its newest, other runs stay', async () => {
    const seed = new SqliteStore(dir);
    const runs = [
      run('sched-old', 'schedule/w.s/1', 8),
      run('sched-new', 'schedule/w.s/2', 1),
      run('loop-1', 'loop/w.l/1', 9),
      run('loop-2', 'loop/w.l/2', 8),
      run('signal-old', 'signal/w.g/call-1', 30),
      run('event-old', 'event/w.e/run-x', 30),
      run('tool-old', 'tool:call-9', 30),
    ];
    for (const r of runs) await seed.workflows.createRun(r);
    await seed.close();

    const { runtime, events } = await daemon(dir, 'workflows: []\n');
    try {
      await waitUntil(() => events.some((e) => e['event'] === 'start.keys_pruned'), 10_000, 'the prune at start');
      assert.equal(events.find((e) => e['event'] === 'start.keys_pruned')?.['removed'], 4);
      const left = (await runtime.store.workflows.listRuns({})).map((r) => r.id).sort();
      assert.deepEqual(left, ['loop-2', 'sched-new', 'tool-old']);
      // The key went with its run: the same firing made again starts a run (it was deduplicated before).
      const again = await runtime.store.workflows.createRun(run('sched-again', 'schedule/w.s/1', 0));
      assert.equal(again.created, true);
      const kept = await runtime.store.workflows.createRun(run('sched-dup', 'schedule/w.s/2', 0));
      assert.equal(kept.created, false, 'a key within the retention still deduplicates');
    } finally {
      await runtime.stop();
    }
  });

  it('forgets the done keys of one-shot schedules past 7 days, and never fires an `at` that old', async () => {
    const keysDir = mkdtempSync(join(tmpdir(), 'agentd-donekeys-'));
    const seed = new SqliteStore(keysDir);
    await seed.timers.remember('schedule-done/old.s/{"at":"x"}', Date.now() - 8 * DAY);
    await seed.timers.remember('schedule-done/new.s/{"at":"y"}', Date.now() - DAY);
    await seed.timers.remember('webhook/w.h/k', Date.now() - 8 * DAY);
    await seed.close();
    const at = new Date(Date.now() - 8 * DAY).toISOString();
    const yaml = `workflows:
  - name: stale
    steps:
      s: {kind: schedule, at: "${at}", catch_up: all}
      f: {kind: finish, depends_on: [s]}
`;
    const { runtime, events } = await daemon(keysDir, yaml);
    try {
      await waitUntil(() => events.some((e) => e['event'] === 'start.keys_pruned'), 10_000, 'the prune at start');
      assert.equal(events.find((e) => e['event'] === 'start.keys_pruned')?.['done_keys'], 1);
      assert.equal(await runtime.store.timers.seen('schedule-done/old.s/{"at":"x"}'), false, 'past 7 days: gone');
      assert.equal(await runtime.store.timers.seen('schedule-done/new.s/{"at":"y"}'), true, 'within 7 days: kept');
      assert.equal(await runtime.store.timers.seen('webhook/w.h/k'), true, 'other keys are not schedule keys');
      const done = events.find((e) => e['event'] === 'start.schedule.done');
      assert.equal(done?.['expired'], true, 'an `at` 8 days past is not armed');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(events.filter((e) => e['event'] === 'run.start').length, 0, 'and fires nothing');
      assert.equal(runtime.supervisor.timers.list().filter((t) => t.kind === 'schedule').length, 0);
    } finally {
      await runtime.stop();
      rmSync(keysDir, { recursive: true, force: true });
    }
  });
});
