// The `human` step's port (producers reference §2.8 `human`) over fake task hooks: it opens and ends its task only
// through the hooks, and an ask that fails ends the task, except when the agent stops (the next life asks again).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('a replay that finds the task ended sends the end notice again (lost with a crash after the end was saved)', async () => {
    const got: Array<{ key: unknown; body: Record<string, unknown> }> = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString();
      });
      req.on('end', () => {
        got.push({ key: req.headers['idempotency-key'], body: JSON.parse(text) as Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const replyUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/n`;
      const { ctx, ended } = hooks(STOPPING);
      const done = { id: 't1', context_id: 'c1', state: 'completed', result: 'yes', message: 'yes', created: 0 };
      ctx.tasks.openStepTask = async () => done as unknown as TaskRecord;
      const end = await askPersons(ctx)({ ...ask, replyUri, signal: new AbortController().signal });
      assert.deepEqual(end, { ok: true, reply: 'yes', task: 't1' });
      assert.deepEqual(ended, [], 'the task is not ended twice');
      assert.deepEqual(got, [
        { key: 't1/completed', body: { task: 't1', context: 'c1', run: 'r1', state: 'completed', answer: 'yes' } },
      ]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
