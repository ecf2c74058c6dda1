// Answers to a task's open question over a real SQLite store (interfaces reference §1.8): an answer given while the
// turn was away after a refusal is handed to the replayed ask, and a refused answer racing an accepted one does not
// ask again a question already answered.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import type { TaskRecord } from '../../../src/domain/task.js';
import { createLogger } from '../../../src/obs/log.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';
import { openStore } from '../../../src/store/openStore.js';
import type { Store } from '../../../src/store/store.js';
import { inboxEvent, taskRecord } from '../../unit/store/storeFixtures.js';
import { within } from '../wait.js';
import { heldReads } from './heldReads.js';

const ALICE: Principal = { id: 'alice', role: 'user', grants: [] };
const SHIP = 'Ship it?';
const YES_NO = { type: 'boolean' };

async function setup() {
  const store = openStore({ kind: 'sqlite', path: mkdtempSync(join(tmpdir(), 'agentd-answers-')) });
  const event = inboxEvent({ principal: 'alice' });
  const task = taskRecord({ inbox_event: event.id, principal: 'alice' });
  await store.inbox.accept(event, task);
  const notes: string[] = [];
  const supervisor = {
    intake: { checkMessageBytes: () => {} },
    steering: { noteFor: (_c: string, _p: string, note: string) => void notes.push(note) },
  } as unknown as SupervisorPort;
  const backendOn = (s: Store) =>
    new TaskBackend({
      store: s,
      log: createLogger({ level: 'error', write: () => {} }),
      now: Date.now,
      drain: () => {},
      supervisor,
      accept: () => Promise.reject(new Error('no accepts here')),
    });
  const stored = async () => (await store.tasks.get(task.id)) as TaskRecord;
  const ask = (backend: TaskBackend, waitMs: number) =>
    backend.askHuman({ eventId: event.id, question: SHIP, schema: YES_NO, timeoutAt: Date.now() + waitMs });
  /** Waits until the stored task asks a question other than `previous`; its id. */
  const asking = async (previous: string | null): Promise<string> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const t = await store.tasks.get(task.id);
      if (t?.state === 'input_required' && t.question && t.question.id !== previous) return t.question.id;
      if (Date.now() > deadline) throw new Error('timed out after 5000 ms waiting until the task asks');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { store, task, backendOn, stored, ask, asking, notes };
}

describe('answers to a task question', () => {
  it('an answer given while away after a refusal is handed to the replayed ask', async () => {
    // Before, the stored text carried "(previous answer rejected: …)", so the replay dropped the answer and asked again.
    const { store, task, backendOn, stored, ask, asking } = await setup();
    try {
      const before = backendOn(store);
      const first = ask(before, 60_000);
      const q1 = await asking(null);
      const refused = await before.send(ALICE, { taskId: task.id, text: 'perhaps' });
      assert.match(refused.question?.text ?? '', /previous answer rejected/, 'premise: the question was amended');
      before.close(); // the daemon stops; its turn will be replayed
      await within(first, 5_000, 'the stopped ask');
      assert.notEqual((await stored()).question?.id, q1);

      const after = backendOn(store);
      const answered = await after.send(ALICE, { taskId: task.id, text: 'yes' });
      assert.equal(answered.question?.answer, 'yes', 'premise: kept for the replayed ask');
      const replayed = await within(ask(after, 3_000), 10_000, 'the replayed ask');
      assert.deepEqual(replayed, { result: { reply: 'yes', timed_out: false }, is_error: false });
      assert.equal((await stored()).state, 'working');
      after.close();
    } finally {
      await store.close();
    }
  });

  it('a refused answer that read the task before an accepted one landed does not ask again', async () => {
    // Before, the refusal re-asked from its stale read: the task went back to input_required with nobody waiting.
    const { store, task, backendOn, stored, ask, asking } = await setup();
    const held = heldReads(store);
    const backend = backendOn(held.store);
    try {
      const waiting = ask(backend, 60_000);
      await asking(null);
      held.arm();
      const refused = backend.send(ALICE, { taskId: task.id, text: 'perhaps' }).catch((err: Error) => err);
      await within(held.read, 5_000, 'the refused answer reads the task');
      await within(backend.send(ALICE, { taskId: task.id, text: 'yes' }), 5_000, 'the accepted answer');
      assert.deepEqual(await within(waiting, 5_000, 'the ask'), {
        result: { reply: 'yes', timed_out: false },
        is_error: false,
      });
      held.release();
      await within(refused, 5_000, 'the refused answer');
      const after = await stored();
      assert.equal(after.state, 'working');
      assert.equal(after.question, null);
    } finally {
      backend.close();
      await store.close();
    }
  });
});
