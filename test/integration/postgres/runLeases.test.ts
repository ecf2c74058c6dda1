// Workflow run ownership between two replicas over one real PostgreSQL (issue 19): a run belongs to the replica
// that created it; another replica's claim takes it only once its owner's hold ran out, at the next epoch; the
// old owner's save is then refused (store_fenced) and the new owner's goes through; an ended run is nobody's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WorkflowDef, WorkflowRun } from '../../../src/domain/workflow.js';
import type { EventName } from '../../../src/obs/events.js';
import { PostgresStore } from '../../../src/store/postgresStore.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';

/** The hold before any inbox claim: the store's idle-in-transaction limit stands for the lease TTL. */
const HOLD_MS = 400;
let url = '';
const opened: PostgresStore[] = [];

before(async () => {
  url = await createTestDatabase('run_leases');
});
after(async () => {
  while (opened.length > 0) await opened.pop()?.close();
  await stopLazyServer();
});

async function replica(name: string) {
  const events: Array<{ event: EventName; fields: Record<string, unknown> }> = [];
  const record = (event: EventName, fields: Record<string, unknown> = {}) => events.push({ event, fields });
  const opts = { url, poolSize: 2, replica: name, idleInTransactionMs: HOLD_MS, log: { info: record, warn: record } };
  const store = await PostgresStore.open(opts);
  opened.push(store);
  return { store, named: (e: EventName) => events.filter((x) => x.event === e).map((x) => x.fields) };
}

function run(over: Partial<WorkflowRun> = {}): WorkflowRun {
  return {
    ...{ id: 'run-1', workflow: 'w', definition: { name: 'w' } as unknown as WorkflowDef, status: 'running' },
    ...{ startKey: 'k-1', start: { node: 's', payload: null, ts: 1 }, inputs: {}, vars: {}, steps: {} },
    ...{ principal: null, conversation: null, deadlineMs: null, stepsRun: 0, output: null, error: null },
    ...{ created: 1, updated: 1, finished: null },
    ...over,
  } as WorkflowRun;
}

describe('workflow run ownership between replicas', () => {
  it('keeps a run with its owner, adopts it once the hold ran out, and fences the old owner', async () => {
    const r1 = await replica('r1');
    const r2 = await replica('r2');
    assert.equal((await r1.store.workflows.createRun(run())).created, true);
    assert.deepEqual(await r2.store.workflows.claimRuns?.(), [], 'owned live by r1');
    await r1.store.workflows.saveRun(run({ vars: { n: 1 } }));
    // r1 renews nothing (no heartbeat runs here): its hold runs out.
    await new Promise((r) => setTimeout(r, HOLD_MS + 100));
    const taken = (await r2.store.workflows.claimRuns?.()) ?? [];
    assert.deepEqual(
      taken.map((t) => [t.id, t.vars]),
      [['run-1', { n: 1 }]],
    );
    assert.deepEqual(r2.named('lease.adopted'), [{ run: 'run-1', epoch: 2, replica: 'r2' }]);
    await assert.rejects(r1.store.workflows.saveRun(run({ vars: { n: 'stale' } })), { code: 'store_fenced' });
    assert.equal(r1.named('store.fenced')[0]?.run, 'run-1');
    await r2.store.workflows.saveRun(run({ status: 'completed', output: 'done', vars: { n: 2 } }));
    const stored = await r2.store.workflows.getRun('run-1');
    assert.deepEqual([stored?.status, stored?.vars], ['completed', { n: 2 }]);
    await new Promise((r) => setTimeout(r, HOLD_MS + 100));
    assert.deepEqual(await r1.store.workflows.claimRuns?.(), [], 'an ended run is claimed by nobody');
  });

  it('re-claims its own rows it does not hold (a claim whose reply was lost), once their hold ran out', async () => {
    const before = await replica('r3');
    // The same replica name with nothing held: the process that lost the claim's reply.
    const after = await replica('r3');
    assert.equal((await before.store.workflows.createRun(run({ id: 'run-lost', startKey: 'k-lost' }))).created, true);
    assert.deepEqual(await before.store.workflows.claimRuns?.(), [], 'held here: not claimed again');
    await new Promise((r) => setTimeout(r, HOLD_MS + 100));
    assert.deepEqual(await before.store.workflows.claimRuns?.(), [], 'still held here: not claimed again');
    const taken = (await after.store.workflows.claimRuns?.()) ?? [];
    assert.deepEqual(
      taken.map((t) => t.id),
      ['run-lost'],
    );
    assert.deepEqual(after.named('lease.adopted'), [{ run: 'run-lost', epoch: 2, replica: 'r3' }]);
    await after.store.workflows.saveRun(run({ id: 'run-lost', startKey: 'k-lost', status: 'completed' }));
  });

  it('gives back a run it could not start driving: another replica takes it at once', async () => {
    const r4 = await replica('r4');
    const r5 = await replica('r5');
    assert.equal((await r4.store.workflows.createRun(run({ id: 'run-back', startKey: 'k-back' }))).created, true);
    await r4.store.workflows.releaseRun?.('run-back');
    assert.deepEqual(r4.named('lease.released'), [{ run: 'run-back', epoch: 1, replica: 'r4' }]);
    const taken = (await r5.store.workflows.claimRuns?.()) ?? [];
    assert.deepEqual(
      taken.map((t) => t.id),
      ['run-back'],
    );
    await assert.rejects(r4.store.workflows.saveRun(run({ id: 'run-back', startKey: 'k-back' })), {
      code: 'store_fenced',
    });
    await r5.store.workflows.saveRun(run({ id: 'run-back', startKey: 'k-back', status: 'completed' }));
  });
});
