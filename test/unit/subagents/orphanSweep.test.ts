// Replicas: a subagent whose record was stored but whose inbox row never was (its replica stopped between the two
// writes, issue 19 review item 3) is not orphaned forever: the sweep writes its row and, holding its lease, runs it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { SubagentRecord } from '../../../src/domain/subagent.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Store } from '../../../src/store/store.js';
import { type LeaseDesk, SubagentLeases } from '../../../src/subagents/subagentLease.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

const LEASE = 30_000;
const NOW = 1_000_000;

function fleet(records: SubagentRecord[], rows: Set<string>) {
  const adopted: string[] = [];
  const saved: SubagentRecord[] = [];
  const held = new Set<string>();
  const store = {
    leases: { holds: (ctx: string) => held.has(ctx) },
    subagents: {
      list: async () => records,
      save: async (r: SubagentRecord) => void saved.push(r),
    },
    inbox: {
      accept: async (event: InboxEvent) => {
        const key = event.dedupe_key ?? '';
        const created = !rows.has(key);
        rows.add(key);
        if (created) held.add(event.payload.context_id); // the accept takes the free lease here
        return { record: { ...event, status: 'pending' }, created };
      },
    },
  } as unknown as Store;
  const desk = { adopt: (r: SubagentRecord) => void adopted.push(r.handle), known: new Map() } as unknown as LeaseDesk;
  const deps = { store, log: createLogger({ level: 'error', write: () => {} }), now: () => NOW, lookMs: LEASE / 3 };
  return { leases: new SubagentLeases(deps, desk), adopted, saved };
}

describe('the orphan sweep', () => {
  it('writes the missing row of an unfinished record and adopts it, once', async () => {
    const orphan = subagentRecord({ handle: 'sub-1', status: 'spawned', updated: NOW - 2 * LEASE });
    const { leases, adopted } = fleet([orphan], new Set());
    await leases.sweepOrphans();
    await leases.sweepOrphans();
    assert.deepEqual(adopted, ['sub-1']);
  });

  it('leaves alone a record whose row exists, one that ended, and one younger than a lease', async () => {
    const records = [
      subagentRecord({ handle: 'sub-1', status: 'running', updated: NOW - 2 * LEASE }),
      subagentRecord({ handle: 'sub-2', status: 'completed', updated: NOW - 2 * LEASE }),
      subagentRecord({ handle: 'sub-3', status: 'spawned', updated: NOW - 1_000 }),
    ];
    const { leases, adopted } = fleet(records, new Set(['subagent:sub-1']));
    await leases.sweepOrphans();
    assert.deepEqual(adopted, []);
  });

  it('a row that could not be written marks the stored record failed (its caller was told so)', async () => {
    const { leases, saved } = fleet([], new Set());
    const record = subagentRecord({ handle: 'sub-4', status: 'spawned' });
    const err = new Error('connection lost');
    assert.equal(await leases.unopened(record, err), err);
    assert.deepEqual(
      saved.map((r) => [r.handle, r.status]),
      [['sub-4', 'failed']],
    );
  });
});
