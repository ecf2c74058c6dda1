// Subagent records, their stored whole results and the spawn log in the Store behaviour suite (storeBehaviour.ts),
// alike in every backend (schemas 5 and 7).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentRecord } from '../../../src/domain/subagent.js';
import type { Store } from '../../../src/store/store.js';

export function subagentRecord(over: Partial<SubagentRecord> = {}): SubagentRecord {
  return {
    handle: 'sub-1',
    instruction: 'count',
    mode: 'async',
    status: 'running',
    attempt: 1,
    result: null,
    error: null,
    requested_by: { ctx: 'root', principal: 'operator', event: 'ev1', subagent: null, depth: 1 },
    call_key: 'ev1#0',
    tokens: { input_tokens: 0, output_tokens: 0 },
    runs: 0,
    created: 100,
    updated: 100,
    spec: {
      instruction: 'count',
      limits: { max_steps: 5, max_tokens: 100, deadline_ms: 1000 },
      priority: 'normal',
      context: [],
      allowed_tools: ['a'],
    },
    ...over,
  };
}

export function describeSubagents(current: () => Store): void {
  describe('subagents', () => {
    it('lists nothing in a fresh store', async () => {
      assert.deepEqual(await current().subagents.list(), []);
    });

    it('round-trips a record and replaces it by handle, listing oldest first', async () => {
      const store = current();
      await store.subagents.save(subagentRecord({ handle: 'sub-2', created: 200, updated: 200 }));
      await store.subagents.save(subagentRecord());
      const done = subagentRecord({ status: 'completed', result: { n: 1 }, updated: 300 });
      await store.subagents.save(done);
      const listed = await store.subagents.list();
      assert.deepEqual(
        listed.map((r) => [r.handle, r.status]),
        [
          ['sub-1', 'completed'],
          ['sub-2', 'running'],
        ],
      );
      assert.deepEqual(listed[0], done);
    });

    it('saves a charge up the lineage in one write: each record replaced by handle', async () => {
      const store = current();
      await store.subagents.save(subagentRecord({ tree_tokens: 5 }));
      const parent = subagentRecord({ tree_tokens: 40 });
      const child = subagentRecord({ handle: 'sub-2', created: 200, tree_tokens: 35 });
      await store.subagents.saveAll([child, parent]);
      const listed = await store.subagents.list();
      assert.deepEqual(
        listed.map((r) => [r.handle, r.tree_tokens]),
        [
          ['sub-1', 40],
          ['sub-2', 35],
        ],
      );
    });

    it('commits record writes in the order they were issued, awaited or not', async () => {
      // A charge's unawaited saveAll, then the result's save: on PostgreSQL without the port's write order the
      // single-statement save committed first on another pooled connection and the older `running` copy won.
      const store = current();
      for (let round = 0; round < 10; round++) {
        const handle = `sub-${round}`;
        const charge = store.subagents.saveAll([subagentRecord({ handle, tree_tokens: round })]);
        const done = store.subagents.save(subagentRecord({ handle, status: 'completed', updated: 300 }));
        await Promise.all([charge, done]);
      }
      const statuses = new Set((await store.subagents.list()).map((r) => r.status));
      assert.deepEqual([...statuses], ['completed']);
    });

    it('removes records by handle and ignores unknown handles', async () => {
      const store = current();
      await store.subagents.save(subagentRecord());
      await store.subagents.save(subagentRecord({ handle: 'sub-2', created: 200 }));
      await store.subagents.remove(['sub-1', 'sub-9']);
      assert.deepEqual(
        (await store.subagents.list()).map((r) => r.handle),
        ['sub-2'],
      );
    });

    it('keeps the newest whole result per handle, durably, and removes it with its record', async () => {
      const store = current();
      const body = `${'é'.repeat(6000)}tail`;
      await store.subagents.save(subagentRecord());
      await store.subagents.save(subagentRecord({ handle: 'sub-2', created: 200 }));
      assert.equal(await store.subagents.readResult('sub-1'), null);
      await store.subagents.saveResult('sub-1', { run: 1, body: 'first' });
      await store.subagents.saveResult('sub-1', { run: 2, body });
      await store.subagents.saveResult('sub-2', { run: 1, body: 'other' });
      assert.deepEqual(await store.subagents.readResult('sub-1'), { run: 2, body });
      await store.subagents.remove(['sub-1']);
      assert.equal(await store.subagents.readResult('sub-1'), null, 'pruned with its record');
      assert.deepEqual(await store.subagents.readResult('sub-2'), { run: 1, body: 'other' });
    });

    it('keeps the spawn log apart from the records and forgets entries past the window', async () => {
      const store = current();
      await store.subagents.noteActivity('sub-1', 1_000, 0);
      await store.subagents.noteActivity('sub-2', 2_000, 0);
      await store.subagents.noteActivity('sub-1', 3_000, 0);
      assert.deepEqual(await store.subagents.activity(0), [
        { handle: 'sub-1', at: 3_000 },
        { handle: 'sub-2', at: 2_000 },
      ]);
      assert.deepEqual(await store.subagents.activity(2_500), [{ handle: 'sub-1', at: 3_000 }]);
      await store.subagents.save(subagentRecord({ handle: 'sub-2' }));
      await store.subagents.remove(['sub-2']);
      assert.equal((await store.subagents.activity(0)).length, 2, 'removing a record leaves its entry');
      await store.subagents.noteActivity('sub-3', 5_000, 2_500);
      assert.deepEqual(
        (await store.subagents.activity(0)).map((e) => e.handle),
        ['sub-1', 'sub-3'],
        'entries older than forgetBefore are gone',
      );
    });
  });
}
