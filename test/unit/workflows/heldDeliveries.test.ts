// Message and webhook deliveries held for waiting steps (heldDeliveries.ts): apart from signals, one per waiting
// step's channel, a retry a duplicate, deliveries for ended waits let go, and old records' deliveries still read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BufferedSignal, StepState, WorkflowRun } from '../../../src/domain/workflow.js';
import { holdDelivery, isHeld, takeHeld, waitedChannels } from '../../../src/workflows/heldDeliveries.js';

const waiting = (channel: string, kind: 'message' | 'webhook' | 'signal' = 'message'): StepState =>
  ({ status: 'suspended', wait: { kind, signal: channel, dueMs: null } }) as StepState;

const runOf = (steps: Record<string, StepState>, extra: Partial<WorkflowRun> = {}): WorkflowRun =>
  ({ steps, ...extra }) as WorkflowRun;

const delivery = (name: string, key: string): BufferedSignal => ({ name, key, payload: key, at: 0 });

describe('held deliveries', () => {
  it('holds one delivery per waiting channel; a retry is a duplicate; a second is refused', () => {
    const run = runOf({
      x: waiting('@message/x#1'),
      y: waiting('@webhook/y#1', 'webhook'),
      z: waiting('go', 'signal'),
    });
    assert.deepEqual([...waitedChannels(run)].sort(), ['@message/x#1', '@webhook/y#1']);
    const first = holdDelivery(run, delivery('@message/x#1', 'm-1'));
    assert.equal(first.type, 'held');
    run.held = first.type === 'held' ? first.held : [];
    assert.deepEqual(holdDelivery(run, delivery('@message/x#1', 'm-1')), { type: 'duplicate' });
    assert.deepEqual(holdDelivery(run, delivery('@message/x#1', 'm-2')), { type: 'refused', reason: 'taken' });
    assert.deepEqual(holdDelivery(run, delivery('@message/q#1', 'm-3')), { type: 'refused', reason: 'not_waiting' });
    assert.equal(holdDelivery(run, delivery('@webhook/y#1', 'w-1')).type, 'held');
    assert.equal(run.signals, undefined, 'the signal buffer is not touched');
  });

  it('lets go of deliveries for waits that ended; takes from held, then from an old record’s signals', () => {
    const run = runOf({ x: waiting('@message/x#2') }, { held: [delivery('@message/x#1', 'old')] });
    const got = holdDelivery(run, delivery('@message/x#2', 'new'));
    assert.deepEqual(got.type === 'held' && got.held.map((d) => d.key), ['new']);
    const legacy = runOf({}, { signals: [delivery('go', 's'), delivery('@message/x#1', 'm')] });
    assert.equal(isHeld(legacy, '@message/x#1'), true);
    assert.equal(takeHeld(legacy, '@message/x#1')?.key, 'm');
    assert.deepEqual(
      legacy.signals?.map((d) => d.key),
      ['s'],
    );
    assert.equal(takeHeld(legacy, '@message/x#1'), null);
  });
});
