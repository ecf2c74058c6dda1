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
});
