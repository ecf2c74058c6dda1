// CancelTask on a replica that does not hold the task's conversation (interfaces reference §4.4), over a real SQLite
// file with a stand-in fleet (the request store and NOTIFY are PostgreSQL's, tested in the replicas suite): the
// answer is the ended task once the store shows it, and the wait is measured on the injected clock.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cancelElsewhere } from '../../../src/a2a/fleetCancel.js';
import type { TaskRecord } from '../../../src/domain/task.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { Store } from '../../../src/store/store.js';
import { within } from '../../integration/wait.js';

const TASK: TaskRecord = {
  id: 't1',
  context_id: 'c',
  conversation: 'conv-1',
  state: 'working',
  principal: 'alice',
  inbox_event: 'ev-1',
  message: null,
  result: null,
  question: null,
  history: [],
  created: 0,
  updated: 0,
};

/** The SQLite store seen as a replica that holds no lease; `requested` collects the cancel requests. */
function replica(raw: SqliteStore, requested: string[]): Store {
  const fleet = {
    onSignal: () => () => {},
    requestCancel: async (id: string) => {
      requested.push(id);
    },
    takeCancels: async () => 0,
  };
  const leases = { holds: () => false };
  return new Proxy(raw, {
    get: (target, key) => (key === 'fleet' ? fleet : key === 'leases' ? leases : Reflect.get(target, key, target)),
  }) as unknown as Store;
}

describe('cancelElsewhere', () => {
  it('stores the request and answers with the task once the store shows it ended', async () => {
    const raw = new SqliteStore(mkdtempSync(join(tmpdir(), 'agentd-fleetcancel-')));
    try {
      await raw.tasks.save(TASK);
      const requested: string[] = [];
      const answer = cancelElsewhere(replica(raw, requested), TASK, 'alice', 10_000);
      assert.ok(answer, 'a replica without the lease waits for the holder');
      setTimeout(() => void raw.tasks.save({ ...TASK, state: 'canceled' }), 150);
      const ended = await within(answer, 5_000, 'the ended task');
      assert.equal(ended?.state, 'canceled');
      assert.deepEqual(requested, ['t1']);
    } finally {
      await raw.close();
    }
  });

  it('gives up when the injected clock passes the wait, not the wall clock', async () => {
    const raw = new SqliteStore(mkdtempSync(join(tmpdir(), 'agentd-fleetcancel-')));
    try {
      await raw.tasks.save(TASK);
      // Each look at the clock is a minute later: the 10-minute wait is over after a few reads. On Date.now (the
      // clock not taken) this waited the full 10 minutes and `within` fails.
      let t = 0;
      const clock = () => (t += 60_000);
      const answer = cancelElsewhere(replica(raw, []), TASK, 'alice', 600_000, clock);
      assert.equal(await within(answer ?? Promise.reject(new Error('no wait')), 5_000, 'the give-up'), null);
    } finally {
      await raw.close();
    }
  });
});
