// Subagent records in the Store behaviour suite (storeBehaviour.ts), alike in every backend (schema 5).
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
  });
}
