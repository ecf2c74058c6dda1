// The turn feed the internal producers react to: facts reach every listener in order, an unsubscribed listener
// hears nothing more, and a listener that throws is reported without keeping the fact from the others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import { type Activity, type CommittedTurn, type ContinuationDue, TurnFacts } from '../../../src/steering/turnFeed.js';

const IDLE: Activity = { queued: false, live: false, paused: false, draining: false };

const unexpected = (err: unknown): never => assert.fail(`a listener failed: ${String(err)}`);

function turn(id: string): CommittedTurn {
  const event: InboxEvent = {
    id,
    kind: 'a2a_message',
    ts: 0,
    principal: null,
    payload: { context_id: 'c', text: 't' },
  };
  return { event, outcome: { status: 'completed', reply: 'ok' } };
}

describe('TurnFacts', () => {
  it('delivers committed folds and due continuations and wakes to every listener, in order, until it unsubscribes', () => {
    const feed = new TurnFacts(() => IDLE, unexpected);
    const heard: string[] = [];
    const off = feed.onCommitted((t) => heard.push(`a:${t.event.id}`));
    feed.onCommitted((t) => heard.push(`b:${t.event.id}`));
    feed.onContinuationDue((due) => heard.push(`goal:${due.ctx}`));
    feed.onWakeDue((due) => heard.push(`wake:${due.ctx}`));
    feed.committed(turn('1'));
    feed.continuationDue({ ctx: 'c', principal: null, goal: {} as ContinuationDue['goal'] });
    feed.wakeDue({ about: 'x', ctx: 'c', text: 't', principal: null, msg_depth: 1 });
    off();
    feed.committed(turn('2'));
    assert.deepEqual(heard, ['a:1', 'b:1', 'goal:c', 'wake:c', 'b:2']);
  });

  it('reports a listener that throws and still tells the others', () => {
    const failures: unknown[] = [];
    const feed = new TurnFacts(
      () => IDLE,
      (err) => failures.push(err),
    );
    const heard: string[] = [];
    feed.onCommitted(() => {
      throw new Error('boom');
    });
    feed.onCommitted((t) => heard.push(t.event.id));
    feed.committed(turn('1'));
    assert.deepEqual(heard, ['1']);
    assert.match(String(failures[0]), /boom/);
  });

  it('reads activity from its source each time it is asked', () => {
    let queued = false;
    const feed = new TurnFacts((ctx) => ({ ...IDLE, queued: queued && ctx === 'c' }), unexpected);
    assert.equal(feed.activity('c').queued, false);
    queued = true;
    assert.equal(feed.activity('c').queued, true);
    assert.equal(feed.activity('d').queued, false);
  });
});
