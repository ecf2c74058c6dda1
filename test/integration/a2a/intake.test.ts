// TaskBackend's intake once the agent drains (stopIntake) and once it stops (close): new messages are refused
// with a `draining` error; an answer to an open question, commands, reads and cancels still go through; close()
// ends every open question as cancelled. A real SQLite store; the supervisor port is a stub.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { QuotaExceeded } from '../../../src/budget/quotas.js';
import type { Config } from '../../../src/config/types.js';
import { createLogger } from '../../../src/obs/log.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';
import { openStore } from '../../../src/store/openStore.js';
import { ConversationIntake, type ConversationIntakeDeps } from '../../../src/supervisor/conversationIntake.js';
import { inboxEvent, taskRecord } from '../../unit/store/storeFixtures.js';
import { within } from '../wait.js';

const OPERATOR: Principal = { id: 'operator', role: 'operator', grants: [] };

/** The operator's message_bytes quota (a real intake checks an answer against it). */
function quotaCheck(messageBytes: number | undefined) {
  const principals = [{ id: 'boss', role: 'operator', match: { any: true }, quotas: { message_bytes: messageBytes } }];
  const log = createLogger({ level: 'error', write: () => {} });
  const deps = { config: { a2a: { principals } } as unknown as Config, log } as ConversationIntakeDeps;
  const real = new ConversationIntake(deps);
  return real.checkMessageBytes.bind(real);
}

async function setup(messageBytes?: number) {
  const store = openStore({ kind: 'sqlite', path: mkdtempSync(join(tmpdir(), 'agentd-intake-')) });
  const event = inboxEvent({ principal: 'operator' });
  const task = taskRecord({ inbox_event: event.id, principal: 'operator' });
  await store.inbox.accept(event, task);
  const intake = {
    admit: async () => ({ release: () => {} }),
    load: async () => {},
    withLoaded: async (_ctx: string, work: () => unknown) => work(),
    checkMessageBytes: quotaCheck(messageBytes),
  };
  const supervisor = { status: () => ({ running: 1 }), cancelEvent: () => {}, intake } as unknown as SupervisorPort;
  const accepted: string[] = [];
  const backend = new TaskBackend({
    store,
    log: createLogger({ level: 'error', write: () => {} }),
    now: Date.now,
    drain: () => {},
    supervisor,
    accept: (input) => {
      accepted.push(input.text);
      return Promise.reject(new Error('accepted'));
    },
  });
  backend.setListening(true);
  const ask = (question: string) =>
    backend.askHuman({ eventId: event.id, question, timeoutAt: Date.now() + 3_600_000 });
  const asked = async () => {
    for (let i = 0; (await store.tasks.get(task.id))?.state !== 'input_required'; i++) {
      if (i > 500) throw new Error('timed out after 5 s waiting for the question');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { store, backend, task, accepted, ask, asked };
}

describe('TaskBackend intake', () => {
  it('while draining: refuses new messages, lets an answer, a command and a read through', async () => {
    const { store, backend, task, accepted, ask, asked } = await setup();
    try {
      await assert.rejects(backend.send(OPERATOR, { text: 'before' }), /accepted/, 'premise: a send is accepted');
      const answer = ask('Which colour?');
      await asked();
      backend.stopIntake();
      await assert.rejects(backend.send(OPERATOR, { text: 'new' }), /draining/);
      assert.deepEqual(accepted, ['before'], 'nothing new reached the inbox');
      const status = await backend.send(OPERATOR, { text: '', command: { op: 'status', args: {} } });
      assert.equal(status.state, 'completed');
      assert.equal((await backend.getTask(OPERATOR, task.id))?.state, 'input_required');
      const working = await backend.send(OPERATOR, { text: 'blue', taskId: task.id });
      assert.equal(working.state, 'working');
      assert.deepEqual(await within(answer, 5_000, 'the answer'), {
        result: { reply: 'blue', timed_out: false },
        is_error: false,
      });
    } finally {
      await store.close();
    }
  });

  it('an answer past message_bytes is refused and its question stays open; one within it is taken', async () => {
    const { store, backend, task, ask, asked } = await setup(8);
    try {
      const answer = ask('Which colour?');
      await asked();
      // Before, an answer was never measured: this one was taken, whatever its size.
      await assert.rejects(
        backend.send(OPERATOR, { text: 'a very long answer', taskId: task.id }),
        (err: unknown) => err instanceof QuotaExceeded && err.refusal.quota === 'message_bytes',
      );
      assert.equal((await backend.getTask(OPERATOR, task.id))?.state, 'input_required', 'still asking');
      assert.equal((await backend.send(OPERATOR, { text: 'blue', taskId: task.id })).state, 'working');
      assert.deepEqual(await within(answer, 5_000, 'the answer'), {
        result: { reply: 'blue', timed_out: false },
        is_error: false,
      });
    } finally {
      await store.close();
    }
  });

  it('close(): every open question ends as a tool error, and no new one waits', async () => {
    const { store, backend, ask, asked } = await setup();
    try {
      const answer = ask('Which colour?');
      await asked();
      backend.close();
      const result = await within(answer, 5_000, 'the closed question');
      assert.equal(result.is_error, true);
      assert.match(String(result.result), /stopping/);
      assert.equal(backend.humanChannel, false, 'nobody is reachable any more');
      const late = await within(ask('Anyone?'), 5_000, 'a question after close');
      assert.equal(late.is_error, true);
    } finally {
      await store.close();
    }
  });
});
