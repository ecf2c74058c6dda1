// CancelTask on a `human` step's question (producers reference §2.8 `human`, §17.2 of the turn reference): the task
// ends CANCELED at once, the step fails with the cancel (its on_error decides the run), and no task is left open.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { clientFor } from '../a2a/listenerHarness.js';
import { daemon, doneOf } from '../triggers/startRig.js';
import { waitUntil, within } from '../wait.js';

const YAML = `workflows:
  - name: ship
    steps:
      s: {kind: once}
      h: {kind: human, depends_on: s, question: "Ship now?", timeout: 5m}
      f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}
`;
const dir = mkdtempSync(join(tmpdir(), 'agentd-humancancel-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const asking = (events: Array<Record<string, unknown>>) =>
  events.filter((e) => e['event'] === 'a2a.task' && e['state'] === 'input_required').map((e) => String(e['task']));

describe('a human step: CancelTask', () => {
  it("ends the question's task CANCELED at once, and the step fails with it", async () => {
    const { runtime, url, events } = await daemon(dir, YAML);
    try {
      await waitUntil(() => asking(events).length === 1, 10_000, 'the question is asked');
      const [task] = asking(events);
      const opened = events.filter((e) => e['event'] === 'a2a.task' && e['task'] === task).map((e) => e['state']);
      // The backend opens the step's task (TaskHooks.openStepTask): logged and fed like any task, not written aside.
      assert.deepEqual(opened, ['working', 'input_required']);
      const client = await clientFor(url);
      // Before the fix CancelTask asked the supervisor to cancel an event that does not exist, waited its 10 s and
      // answered the task still input-required; the step then failed and left the task open.
      const canceled = await within(
        client.cancelTask({ tenant: '', id: String(task), metadata: undefined }),
        5_000,
        'CancelTask answers before its fold wait',
      );
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      await waitUntil(() => doneOf(events, 'ship').length === 1, 10_000, 'the run ended');
      const [run] = await runtime.store.workflows.listRuns({});
      assert.equal(run?.status, 'failed');
      assert.match(String(run?.error), /the task was canceled/);
      const stored = await runtime.store.tasks.get(String(task));
      assert.deepEqual([stored?.state, stored?.question], ['canceled', null]);
      assert.equal(stored?.run, run?.id, 'the task names the run that asks on it');
      const open = await runtime.store.tasks.list({ principal: null, state: 'input_required', limit: 10 });
      assert.deepEqual(open, [], 'no question is left open');
    } finally {
      await runtime.stop();
    }
  });
});
