import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentConfig } from '../../../src/config/types.js';
import {
  a2aMessageWakes,
  humanReplyWake,
  runFinishedWake,
  WAKE_EXCERPT_CHARS,
} from '../../../src/steering/wakeNotes.js';

type Wake = Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'>;
const SEED: Wake = { wake_on: ['a2a_message', 'human_reply', 'workflow_failed'], on_workflow_finished: 'ignore' };
const run = (status: 'completed' | 'failed', reply = 'done', error?: string) => ({
  from: 'root',
  conversation: 'conv-1',
  outcome: { status, reply, ...(error ? { error } : {}) },
});

describe('runFinishedWake', () => {
  it('notes a failure in the sender while wake_on holds workflow_failed, quoting the error', () => {
    assert.deepEqual(runFinishedWake(run('failed', '', 'model said no'), SEED), {
      kind: 'note',
      ctx: 'root',
      text: 'run in conv-1 failed: model said no',
    });
    assert.equal(runFinishedWake(run('failed', '', 'x'), { ...SEED, wake_on: ['a2a_message'] }).kind, 'ignore');
  });

  it('ignores a success by default; note and think follow on_workflow_finished; workflow_finished means note', () => {
    assert.equal(runFinishedWake(run('completed'), SEED).kind, 'ignore');
    assert.equal(runFinishedWake(run('completed'), { ...SEED, on_workflow_finished: 'note' }).kind, 'note');
    assert.equal(runFinishedWake(run('completed'), { ...SEED, on_workflow_finished: 'think' }).kind, 'think');
    const both: Wake = { wake_on: [...SEED.wake_on, 'workflow_finished'], on_workflow_finished: 'ignore' };
    assert.equal(runFinishedWake(run('completed'), both).kind, 'note');
  });

  it(`clips the quoted text at ${WAKE_EXCERPT_CHARS} characters with an ellipsis`, () => {
    const long = 'é'.repeat(WAKE_EXCERPT_CHARS + 50);
    const action = runFinishedWake(run('completed', long), { ...SEED, on_workflow_finished: 'note' });
    assert.ok(action.kind === 'note');
    assert.ok(action.text.endsWith(`${'é'.repeat(WAKE_EXCERPT_CHARS)}…`));
  });
});

describe('humanReplyWake and a2aMessageWakes', () => {
  it('keeps a reply as a note only while wake_on holds human_reply', () => {
    const reply = { conversation: 'alice/c1', taskId: 't1', text: 'yes' };
    assert.deepEqual(humanReplyWake(reply, SEED), {
      kind: 'note',
      ctx: 'alice/c1',
      text: 'human reply (task t1): yes',
    });
    assert.equal(humanReplyWake(reply, { ...SEED, wake_on: [] }).kind, 'ignore');
  });

  it('an A2A message wakes the agent only while wake_on holds a2a_message', () => {
    assert.equal(a2aMessageWakes(SEED), true);
    assert.equal(a2aMessageWakes({ ...SEED, wake_on: ['human_reply'] }), false);
  });
});
