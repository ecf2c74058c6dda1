// The feed's `turn` end for a turn that ran before its task was known (issue 18): it ends as its task did.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskFeed } from '../../../src/a2a/taskFeed.js';
import type { TaskRecord } from '../../../src/domain/task.js';
import { taskRecord } from '../store/storeFixtures.js';

/** The `turn` entry the fold of `task` commits, after its turn was seen running without a known task. */
function turnEndOf(task: Partial<TaskRecord>): Record<string, unknown> | undefined {
  const feed = new TaskFeed({ publish: () => {}, committed: () => {} }, () => ({}));
  feed.activity('ev-1', { phase: 'thinking', ctx: 'c' });
  const entries = feed.folded(taskRecord({ inbox_event: 'ev-1', ...task }), 5);
  return entries.find((e) => e.kind === 'turn')?.data as Record<string, unknown> | undefined;
}

describe('TaskFeed.folded turn end', () => {
  it('a completed task ends its turn completed', () => {
    assert.equal(turnEndOf({ state: 'completed', result: 'done' })?.['state'], 'completed');
  });

  it('a failed or canceled task ends its turn with that state and its message', () => {
    // Before, every such turn showed `completed`.
    const failed = turnEndOf({ state: 'failed', message: 'model unreachable' });
    assert.equal(failed?.['state'], 'failed');
    assert.equal(failed?.['message'], 'model unreachable');
    const canceled = turnEndOf({ state: 'canceled', message: null });
    assert.deepEqual([canceled?.['state'], canceled?.['message']], ['canceled', 'canceled']);
  });
});
