// agent.serve() and the restart recovery: a task a crash left `working` (its message still pending in the store)
// ends `completed` with its reply, as the daemon's does, though the A2A listener is opened only by serve().
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startingTask } from '../../../src/a2a/tasks.js';
import { createAgent, runtimeOf } from '../../../src/agent.js';
import { silentLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { inboxEvent } from '../../../src/supervisor/supervisorOptions.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { JSON_V1, rawRequest, rpc } from '../a2a/listenerHarness.js';
import { within } from '../wait.js';

describe('agent.serve() after a crash', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'answered after the restart' }] });
  });
  after(async () => model.close());

  it('a task left working is recovered like the daemon does: the replayed turn ends it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-serve-'));
    const taskId = '01KSERVERECOVERY000000000A';
    const input = { context_id: 'crashed', text: 'left behind', principal: 'operator' };
    const event = inboxEvent({ ...input, task: { id: taskId, context_id: 'ctx-crashed' } }, Date.now(), 'execute');
    const seeded = new SqliteStore(dir);
    await seeded.inbox.accept(event, startingTask(event) ?? undefined);
    assert.equal((await seeded.tasks.get(taskId))?.state, 'working', 'the premise: a task the crash left working');
    await seeded.close();

    const agent = await createAgent({ intelligence: model.url, store: dir, config: { env: {} }, log: silentLogger });
    try {
      const outcome = await within(runtimeOf(agent).supervisor.outcomeOf(event.id), 30_000, 'the replayed turn');
      assert.equal(outcome.status, 'completed', outcome.error);
      // Before, serve() started the A2A producer only now: the turn had folded with no task backend bound, and
      // the task stayed `working` for good.
      const { a2aUrl } = await agent.serve({ listen: 'http://127.0.0.1:0' });
      assert.ok(a2aUrl);
      const reply = await rawRequest(a2aUrl, rpc('GetTask', { id: taskId }), JSON_V1);
      assert.equal(reply.status, 200, reply.text);
      assert.match(reply.text, /completed/i);
      assert.match(reply.text, /answered after the restart/);
    } finally {
      await agent.close();
    }
    const store = new SqliteStore(dir);
    try {
      const task = await store.tasks.get(taskId);
      assert.equal(task?.state, 'completed');
      assert.equal(task?.result, 'answered after the restart');
    } finally {
      await store.close();
    }
  });
});
