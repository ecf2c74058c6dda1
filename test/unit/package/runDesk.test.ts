// RunDesk: a run is claimed by its message's key before its event id is known; its questions become `question`
// events and are answered by run id or question id, time out unanswered, and end when the agent closes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { RunEvent } from '../../../src/domain/runEvent.js';
import { RunDesk } from '../../../src/runQuestions.js';

const eventOf = (id: string, key?: string): InboxEvent =>
  ({
    id,
    ts: 0,
    principal: 'operator',
    kind: 'a2a_message',
    payload: { context_id: 'c', text: 't' },
    ...(key ? { dedupe_key: key } : {}),
  }) as InboxEvent;

function opened(desk: RunDesk, runId: string): RunEvent[] {
  const events: RunEvent[] = [];
  const key = desk.expect((e) => events.push(e));
  assert.equal(desk.claims(eventOf(runId, key)), true, 'claimed by its key at launch');
  desk.opened(key, runId);
  return events;
}

describe('RunDesk', () => {
  it('claims only its runs: by key before accept returns, by id after', () => {
    const desk = new RunDesk();
    assert.equal(desk.claims(eventOf('x')), false);
    assert.equal(desk.claims(eventOf('y', 'workflow:k#1')), false);
    opened(desk, 'r1');
    assert.equal(desk.claims(eventOf('r1')), true);
    assert.equal(desk.askHuman({ eventId: 'other', question: 'q', timeoutAt: Date.now() + 1000 }), null);
  });

  it('emits a question and resolves with the answer given by run id, then by question id', async () => {
    const desk = new RunDesk();
    const events = opened(desk, 'r1');
    const first = desk.askHuman({ eventId: 'r1', question: 'Which?', timeoutAt: Date.now() + 60_000 });
    const second = desk.askHuman({
      eventId: 'r1',
      question: 'May I?',
      timeoutAt: Date.now() + 60_000,
      approval: { tool: 'rm', rule: 'ask-rm' },
    });
    assert.deepEqual(
      events.map((e) => e.type === 'question' && [e.kind, e.question, e.tool]),
      [
        ['ask_human', 'Which?', undefined],
        ['approval', 'May I?', 'rm'],
      ],
    );
    assert.equal(desk.answer('r1', 'blue'), true, "the run's oldest question");
    assert.deepEqual(await first, { result: { reply: 'blue', timed_out: false }, is_error: false });
    const q2 = events[1]?.type === 'question' ? events[1].questionId : '';
    assert.equal(desk.answer(q2, 'yes'), true);
    assert.deepEqual(await second, { result: { reply: 'yes', timed_out: false }, is_error: false });
    assert.equal(desk.answer('r1', 'again'), false, 'nothing left open');
  });

  it('an unanswered question times out; close() ends the open ones and refuses new ones', async () => {
    const desk = new RunDesk();
    opened(desk, 'r1');
    const late = await desk.askHuman({ eventId: 'r1', question: 'q', timeoutAt: Date.now() + 5 });
    assert.deepEqual(late, { result: { reply: null, timed_out: true }, is_error: false });
    const open = desk.askHuman({ eventId: 'r1', question: 'q', timeoutAt: Date.now() + 60_000 });
    desk.close();
    assert.equal((await open)?.is_error, true);
    assert.equal(
      (await desk.askHuman({ eventId: 'r1', question: 'q', timeoutAt: Date.now() + 60_000 }))?.is_error,
      true,
    );
  });

  it('turns checklist changes into plan events and forgets an ended run', () => {
    const desk = new RunDesk();
    const events = opened(desk, 'r1');
    desk.onEngineEvent('r1', 'checklist', { ctx: 'c', op: 'update', progress: '1/2 done' });
    desk.onEngineEvent('r1', 'body', { text: 'x' });
    assert.deepEqual(events, [{ type: 'plan', runId: 'r1', conversation: 'c', op: 'update', progress: '1/2 done' }]);
    desk.ended('unused', 'r1');
    assert.equal(desk.claims(eventOf('r1')), false);
  });
});
