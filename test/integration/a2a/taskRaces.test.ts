// TaskBackend against reads that race: a fold landing between a cancel's read and its wait keeps its end, a cancel
// never relabels a task whose turn has not folded, and a blocking wait whose read is overtaken by the task's end
// still hears it. A real SQLite store, with its task reads held on cue.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { createLogger } from '../../../src/obs/log.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';
import { openStore } from '../../../src/store/openStore.js';
import { inboxEvent, taskRecord } from '../../unit/store/storeFixtures.js';
import { within } from '../wait.js';
import { heldReads } from './heldReads.js';

const ALICE: Principal = { id: 'alice', role: 'user', grants: [] };

async function setup() {
  const store = openStore({ kind: 'sqlite', path: mkdtempSync(join(tmpdir(), 'agentd-races-')) });
  const event = inboxEvent({ principal: 'alice' });
  const task = taskRecord({ inbox_event: event.id, principal: 'alice' });
  await store.inbox.accept(event, task);
  const held = heldReads(store);
  const cancels: string[] = [];
  const supervisor = { cancelEvent: (id: string) => void cancels.push(id) } as unknown as SupervisorPort;
  const backend = new TaskBackend({
    store: held.store,
    log: createLogger({ level: 'error', write: () => {} }),
    now: Date.now,
    drain: () => {},
    supervisor,
    accept: () => Promise.reject(new Error('no accepts here')),
    // This fake supervisor never folds a cancelled turn: the cancel's wait for the fold ends after this bound.
    cancelWaitMs: 200,
  });
  const fold = (state: 'completed' | 'failed') =>
    store.inbox.complete(event.id, {
      outcome: { status: state, reply: 'done' },
      conversations: [],
      task: { ...task, state, result: 'done', updated: task.updated + 1 },
    });
  return { store, held, backend, task, cancels, fold };
}

describe('TaskBackend under racing writes', () => {
  it('a fold that commits while a cancel is between its read and its write keeps its end; the cancel is refused', async () => {
    const { store, held, backend, task, cancels, fold } = await setup();
    try {
      held.arm();
      const cancel = backend.cancelTask(ALICE, task.id);
      await within(held.read, 5_000, 'the cancel reads the task');
      await fold('completed');
      held.release();
      await assert.rejects(within(cancel, 5_000, 'the cancel'), /already completed/);
      assert.equal((await store.tasks.get(task.id))?.state, 'completed', 'the first end stays');
      assert.deepEqual(cancels, [], 'nothing to cancel in the supervisor');
    } finally {
      await store.close();
    }
  });

  it('a cancel whose turn does not fold within its wait writes nothing: the fold alone sets the end', async () => {
    // Before, the cancel marked the task CANCELED itself after its wait, while the turn (and its worker) ran on.
    const { store, backend, task, cancels, fold } = await setup();
    try {
      const answered = await backend.cancelTask(ALICE, task.id);
      assert.deepEqual(cancels, [task.inbox_event], 'premise: the supervisor was asked to cancel the turn');
      assert.equal(answered.state, 'working', 'answered as it stands: no relabel before the fold');
      assert.equal((await store.tasks.get(task.id))?.state, 'working');
      await fold('completed');
      assert.equal((await store.tasks.get(task.id))?.state, 'completed', 'the fold sets the end');
    } finally {
      await store.close();
    }
  });

  it('a blocking wait hears an end that lands between its read and its subscription', async () => {
    const { store, held, backend, task, fold } = await setup();
    try {
      held.arm();
      const waiting = backend.settled(ALICE, task.id, new AbortController().signal);
      await within(held.read, 5_000, 'the wait reads the task');
      await fold('completed');
      backend.afterFold({ ...task, state: 'completed' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the fold's news has gone out
      held.release();
      const settled = await within(waiting, 5_000, 'the blocking wait');
      assert.equal(settled?.state, 'completed');
      assert.equal(backend.followedTasks, 0, 'the wait leaves no watcher behind');
    } finally {
      await store.close();
    }
  });
});
