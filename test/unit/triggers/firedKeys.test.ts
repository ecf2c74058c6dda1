import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { FIRED_KEY_KEEP_MS, planFiredKeyPrune } from '../../../src/triggers/firedKeys.js';

const NOW = 1_000 * FIRED_KEY_KEEP_MS;
const OLD = NOW - FIRED_KEY_KEEP_MS - 1;
const run = (id: string, startKey: string, finished: number, status: WorkflowRun['status'] = 'completed') => ({
  id,
  startKey,
  status,
  finished,
  updated: finished,
});

describe('planFiredKeyPrune', () => {
  it('prunes finished trigger runs past the retention, keeping each loop its newest run', () => {
    const runs = [
      run('s-old', 'schedule/w.s/1', OLD),
      run('s-new', 'schedule/w.s/2', NOW - 1_000),
      run('l-1', 'loop/w.l/1', OLD),
      run('l-10', 'loop/w.l/10', OLD, 'failed'),
      run('l-2', 'loop/w.l/2', OLD),
      run('e', 'event/w.e/run-1', OLD, 'cancelled'),
      run('g', 'signal/w.g/call-1', OLD),
      run('u', 'subscribe/w.u/5-1', OLD),
      run('h', 'webhook/w.h/abc', OLD),
    ];
    assert.deepEqual(planFiredKeyPrune(runs, NOW), ['s-old', 'l-1', 'l-2', 'e', 'g', 'u', 'h']);
  });

  it('never prunes a live run, nor runs whose key is not a recurring trigger firing', () => {
    const runs = [
      run('live', 'schedule/w.s/1', OLD, 'running'),
      run('tool', 'tool:call-1', OLD),
      run('once', 'once:w.s', OLD),
      run('a2a', 'a2a/w.a/run-abc', OLD),
    ];
    assert.deepEqual(planFiredKeyPrune(runs, NOW), []);
  });

  it('keeps a run exactly at the retention', () => {
    assert.deepEqual(planFiredKeyPrune([run('s', 'schedule/w.s/1', NOW - FIRED_KEY_KEEP_MS)], NOW), []);
  });
});
