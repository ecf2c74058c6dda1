// Inbox events stored before kinds existed (all `a2a_message`) read back as their producer's kind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type InboxEvent, type InboxRecord, readInboxEvent } from '../../../src/domain/inbox.js';

/** A v3 row as the store kept it: kind a2a_message, the producer told only by payload fields. */
function v3(payload: Record<string, unknown>, extra: Record<string, unknown> = {}): InboxEvent {
  const text = { context_id: 'c', text: 't', ...payload };
  return { id: 'E1', kind: 'a2a_message', ts: 5, principal: 'operator', payload: text, ...extra } as InboxEvent;
}

describe('readInboxEvent', () => {
  it('maps a v3 goal continuation (origin: goal) to goal_continuation, keeping its goal stamp', () => {
    const event = readInboxEvent(v3({ origin: 'goal', goal_created: 42, msg_depth: 1 }));
    assert.equal(event.kind, 'goal_continuation');
    assert.deepEqual(event.payload, { context_id: 'c', text: 't', msg_depth: 1, goal_created: 42 });
  });

  it('maps a v3 message.send delivery (from) to agent_message', () => {
    const event = readInboxEvent(v3({ from: 'boss', msg_depth: 1 }));
    assert.equal(event.kind, 'agent_message');
    assert.equal(event.kind === 'agent_message' && event.payload.from, 'boss');
  });

  it('maps the v3 startup prompt (its prompt: dedupe key) to startup_prompt; a record keeps status and outcome', () => {
    const stored = v3({}, { dedupe_key: 'prompt:abc', status: 'done', outcome: { status: 'completed', reply: 'hi' } });
    const record = readInboxEvent(stored as InboxRecord);
    assert.equal(record.kind, 'startup_prompt');
    assert.equal(record.dedupe_key, 'prompt:abc');
    assert.deepEqual(record.outcome, { status: 'completed', reply: 'hi' });
  });

  it('leaves a plain caller message, and any event already of a kind, as it is', () => {
    const plain = v3({ task: { id: 'T', context_id: 'x' } });
    assert.equal(readInboxEvent(plain), plain);
    const side: InboxEvent = {
      id: 'E2',
      kind: 'side_task',
      ts: 1,
      principal: null,
      payload: { context_id: 'side-1', text: 'go', parent: 'root' },
    };
    assert.equal(readInboxEvent(side), side);
  });
});
