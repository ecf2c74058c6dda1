// The spawn log kept durably (reference §5 item 4): a restore reads back the activity of subagents whose records
// were pruned, so limits.subagents.total counts them across a restart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { SpawnJournal } from '../../../src/subagents/spawnJournal.js';
import { RECENT_MS } from '../../../src/subagents/spawnLog.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

describe('SpawnJournal', () => {
  it("counts a pruned subagent's spawn after a reload from the store, until the window passes", async () => {
    const store = new MemoryStore();
    const failures: unknown[] = [];
    const before = new SpawnJournal(store.subagents, (err) => failures.push(err));
    before.note('sub-1', 1_000);
    before.note('sub-1', 2_000);
    await store.subagents.list(); // the notes were written in call order before this read
    const after = new SpawnJournal(store.subagents, (err) => failures.push(err));
    // Premise: its record is gone, so a log seeded only from the records would count nothing.
    await after.load([], 3_000);
    assert.equal(after.count([], 3_000), 1);
    assert.equal(after.count([], 2_000 + RECENT_MS), 0);
    const kept = subagentRecord({ handle: 'sub-2', status: 'completed', updated: 2_500 });
    await after.load([kept], 3_000);
    assert.equal(after.count([kept], 3_000), 2, 'the kept records still count as well');
    assert.deepEqual(failures, []);
  });

  it('starts the rate bucket short of the spawns within one period, from the stored log', async () => {
    const store = new MemoryStore();
    new SpawnJournal(store.subagents, () => {}).note('sub-1', 1_000);
    const after = new SpawnJournal(store.subagents, () => {});
    await after.load([], 2_000);
    assert.equal(after.bucket('2/1h', 2_000).tokens, 1);
    assert.equal(after.bucket('2/1s', 2_500).tokens, 2, 'the spawn is older than one period');
  });
});
