// The supervisor's event union and its handler map: every event type reaches its own handler, and a map that
// misses one does not compile (checked by tsc in `npm run lint` and the build: the @ts-expect-error must hold).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnResult } from '../../../src/protocol/frames.js';
import {
  dispatchSupervisorEvent,
  type SupervisorEvent,
  type SupervisorEventType,
  type SupervisorHandlers,
} from '../../../src/supervisor/reactor.js';
import type { LiveTurn } from '../../../src/supervisor/turnWorkers.js';

const turn = { node: 1 } as LiveTurn;
const result: TurnResult = {
  status: 'completed',
  messages: [],
  usage: { input_tokens: 0, output_tokens: 0 },
  rounds: 1,
  tool_calls: 0,
};

const EVENTS: { [K in SupervisorEventType]: Extract<SupervisorEvent, { type: K }> } = {
  inbox_accepted: {
    type: 'inbox_accepted',
    event: { id: '01A', kind: 'a2a_message', ts: 0, principal: null, payload: { context_id: 'c', text: 'hi' } },
  },
  inbox_replayed: { type: 'inbox_replayed', events: [] },
  staging_done: { type: 'staging_done', eventId: '01A', reply: null },
  turn_done: { type: 'turn_done', turn, result },
  worker_exit: { type: 'worker_exit', turn, ended: null, code: 0, signal: null },
  budget_room: { type: 'budget_room' },
  cancel: { type: 'cancel', eventId: '01A', reason: 'stop' },
  drain_abandon: { type: 'drain_abandon' },
  pause: { type: 'pause' },
  resume: { type: 'resume' },
  fold_committed: { type: 'fold_committed', eventId: '01A', outcome: { status: 'completed', reply: 'ok' } },
  fold_failed: { type: 'fold_failed', eventId: '01A' },
  lease_lost: { type: 'lease_lost', ctx: 'c' },
};

function recordingHandlers(seen: string[]): SupervisorHandlers {
  const entries = (Object.keys(EVENTS) as SupervisorEventType[]).map((type) => [type, () => seen.push(type)]);
  return Object.fromEntries(entries) as SupervisorHandlers;
}

describe('SupervisorHandlers', () => {
  it('dispatches every event type to its own handler', () => {
    const seen: string[] = [];
    const handlers = recordingHandlers(seen);
    for (const event of Object.values(EVENTS)) dispatchSupervisorEvent(handlers, event);
    assert.deepEqual(seen, Object.keys(EVENTS));
  });

  it('hands the handler the narrowed event', () => {
    let reason = '';
    const handlers: SupervisorHandlers = { ...recordingHandlers([]), cancel: (e) => (reason = e.reason) };
    dispatchSupervisorEvent(handlers, EVENTS.cancel);
    assert.equal(reason, 'stop');
  });

  it('a map missing a handler is a compile error', () => {
    const { fold_failed: _missing, ...rest } = recordingHandlers([]);
    // @ts-expect-error fold_failed has no handler
    const incomplete: SupervisorHandlers = rest;
    assert.equal(Object.hasOwn(incomplete, 'fold_failed'), false);
  });
});
