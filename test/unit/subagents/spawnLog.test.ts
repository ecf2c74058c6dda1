// What limits.subagents.total counts (reference §5 item 4): live subagents and those active in the last hour,
// whether or not their records are still kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentRecord, SubagentStatus } from '../../../src/domain/subagent.js';
import { countRecent, noteActivity, RECENT_MS, seedSpawnLog } from '../../../src/subagents/spawnLog.js';

const record = (handle: string, status: SubagentStatus, updated: number) =>
  ({ handle, status, updated, created: 0 }) as unknown as SubagentRecord;

describe('countRecent', () => {
  it('counts a pruned spawn of the last hour, once per handle, and forgets it after the hour', () => {
    const log = new Map<string, number>();
    noteActivity(log, 'sub-1', 1_000);
    noteActivity(log, 'sub-2', 2_000);
    noteActivity(log, 'sub-1', 3_000); // its end
    // sub-1's record was pruned: only sub-2's is kept, live.
    const kept = [record('sub-2', 'running', 2_000)];
    assert.equal(countRecent(log, kept, 4_000), 2);
    assert.equal(countRecent(log, kept, 3_000 + RECENT_MS), 1, 'sub-1 ended over an hour ago; sub-2 is live');
    noteActivity(log, 'sub-3', 3_000 + RECENT_MS);
    assert.deepEqual([...log.keys()], ['sub-3'], 'entries past the hour are dropped');
    assert.equal(countRecent(log, kept, 3_000 + RECENT_MS), 2, 'sub-2 still counts while live, by its record');
  });

  it('seeds from the kept records at their last update', () => {
    const log = seedSpawnLog([record('sub-1', 'completed', 5_000), record('sub-2', 'running', 0)]);
    assert.equal(countRecent(log, [], 6_000), 2);
    assert.equal(countRecent(log, [], 5_000 + RECENT_MS), 0);
  });
});
