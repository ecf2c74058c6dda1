// The `human` step's port (producers reference §2.8 `human`) over fake task hooks: it opens and ends its task only
// through the hooks, and an ask that fails ends the task, except when the agent stops (the next life asks again).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '../../../src/domain/task.js';
import { STOPPING } from '../../../src/runtime/openQuestions.js';
import type { ProducerContext } from '../../../src/runtime/producer.js';
import type { StepTaskOpen } from '../../../src/supervisor/supervisorOptions.js';
import type { ToolResult } from '../../../src/tools/internalTools.js';
import { askPersons } from '../../../src/workflows/stepHuman.js';

/** Hooks whose ask answers `answer`, recording the opens and ends asked of them. */
function hooks(answer: ToolResult) {
  const opened: StepTaskOpen[] = [];
  const ended: Array<[string, string, string]> = [];
  const tasks = {
    humanChannel: true,
    async openStepTask(step: StepTaskOpen) {
      opened.push(step);
      return { id: 't1', state: 'working', created: 0 } as TaskRecord;
    },
    async endStepTask(id: string, state: string, message: string) {
      ended.push([id, state, message]);
    },
    askHuman: async () => answer,
  };
  return { ctx: { tasks } as unknown as Pick<ProducerContext, 'tasks'>, opened, ended };
}

const ask = { key: 'workflow:k#1', run: 'r1', principal: null, conversation: null, question: 'Q', timeoutMs: 1_000 };

describe('askPersons', () => {
  it('opens the task through the hooks, for the run when it acts for nobody', async () => {
    const { ctx, opened, ended } = hooks({ result: { reply: 'yes', timed_out: false }, is_error: false });
    const end = await askPersons(ctx)({ ...ask, signal: new AbortController().signal });
    assert.deepEqual(end, { ok: true, reply: 'yes', task: 't1' });
    assert.deepEqual(opened, [{ key: 'workflow:k#1', run: 'r1', principal: 'run:r1', conversation: 'wf-r1' }]);
    assert.deepEqual(ended, [['t1', 'completed', 'yes']]);
  });

  it('an ask that fails ends the task canceled (it stayed open and a retry opened a second)', async () => {
    const { ctx, ended } = hooks({ result: 'the task was canceled', is_error: true });
    const end = await askPersons(ctx)({ ...ask, signal: new AbortController().signal });
    assert.deepEqual(end, { ok: false, error: 'the task was canceled' });
    assert.deepEqual(ended, [['t1', 'canceled', 'the task was canceled']]);
  });

  it('the agent stopping leaves the task asking', async () => {
    const { ctx, ended } = hooks(STOPPING);
    const end = await askPersons(ctx)({ ...ask, signal: new AbortController().signal });
    assert.equal(end.ok, false);
    assert.deepEqual(ended, []);
  });
});
