// The goal's steps live in the steering desk: a replaced goal starts once its old continuation is dropped, goals
// advance and stop with no producer listening (a bare supervisor), and a kick before the restore adds nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContinuationDue } from '../../src/steering/turnFeed.js';
import { answer, type Rig, startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';

function userTexts(rig: Rig, ctx: string): string[] {
  return (rig.sup.conversation(ctx)?.messages ?? []).flatMap((m) => (m.role === 'user' ? [m.text] : []));
}

describe('goal steps', () => {
  it('a goal replaced while its old continuation waits gets a turn once that continuation is dropped', async () => {
    const slow = { when_contains: 'hold the slot', content: 'held', delay_ms: 1_500 };
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [slow] }, { AGENTD_AGENT_MAX_PARALLEL_TURNS: '1' });
    try {
      await rig.sup.accept({ context_id: 'x', text: 'hold the slot', principal: OP });
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the slot is taken');
      rig.sup.steering.goalSet('g', OP, 'first objective', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => rig.named('goal.continued').length === 1, 5_000, 'the first continuation is queued');
      const second = rig.sup.steering.goalSet('g', OP, 'second objective', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => rig.named('goal.continuation.dropped').length === 1, 20_000, 'the old one is dropped');
      // Premise: it was dropped because its goal was replaced, and the kick for the new goal added nothing.
      assert.equal(rig.named('goal.continuation.dropped')[0]?.reason, 'the goal was replaced');
      const ran = () => userTexts(rig, 'g').some((t) => t.includes('second objective'));
      await waitUntil(ran, 20_000, 'the replaced goal gets its turn');
      const goal = () => rig.sup.conversation('g')?.controls?.goal;
      await waitUntil(() => (goal()?.turns ?? 0) >= 1, 20_000, 'the new goal accounts its turn');
      assert.equal(goal()?.created, second.created);
      assert.ok(!userTexts(rig, 'g').some((t) => t.includes('first objective')), 'the old goal never ran');
      rig.sup.steering.goalClear('g', OP);
      await within(rig.sup.whenIdle(), 20_000, 'idle');
    } finally {
      await rig.close();
    }
  });

  it('a bare supervisor (no producer listening) still accounts and stops goals, and publishes what is due', async () => {
    const rig = await startRig({ turns: [{ content: 'done a step' }] }, {}, { producers: false });
    const due: ContinuationDue[] = [];
    const off = rig.sup.steering.feed.onContinuationDue((d) => due.push(d));
    try {
      rig.sup.steering.goalSet('b', OP, 'spend', 1);
      await answer(rig, 'b', 'work on it');
      const limited = rig.sup.conversation('b')?.controls?.goal;
      assert.equal(limited?.status, 'budget_limited');
      assert.equal(limited?.turns, 1);
      assert.ok((limited?.tokens ?? 0) > 0);
      assert.equal(rig.named('goal.budget_limited').length, 1);

      rig.sup.steering.goalSet('n', OP, 'go on', null);
      await answer(rig, 'n', 'start');
      const going = rig.sup.conversation('n')?.controls?.goal;
      assert.equal(going?.turns, 1, 'the turn was accounted');
      assert.equal(going?.continuations, 1, 'the next continuation was recorded');
      assert.deepEqual(
        due.map((d) => [d.ctx, d.goal.continuations]),
        [['n', 1]],
      );
      // Nobody accepted it: no goal_continuation event exists.
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(userTexts(rig, 'n').length, 1);
    } finally {
      off();
      await rig.close();
    }
  });

  it("a bare supervisor still leaves a finished run's wake note in its sender", async () => {
    const rig = await startRig(
      { turns: [{ content: 'ok' }] },
      { AGENTD_AGENT_ON_WORKFLOW_FINISHED: 'note' },
      {
        producers: false,
      },
    );
    try {
      await answer(rig, 'sender', 'hello');
      const run = { kind: 'agent_message', from: 'sender', msg_depth: 1 } as const;
      const ev = (await rig.sup.accept({ ...run, context_id: 'w', text: 'do it', principal: OP })).record;
      await within(rig.sup.outcomeOf(ev.id), 20_000, 'the delivered run');
      const notes = (rig.sup.conversation('sender')?.messages ?? []).filter((m) => m.role === 'note');
      assert.ok(
        notes.some((m) => /^run in w completed: ok/.test(m.text)),
        notes.map((m) => m.text).join(' | '),
      );
    } finally {
      await rig.close();
    }
  });

  it('a goal set and kicked before the restore gets exactly one continuation (the restore picks it up)', async () => {
    const due: ContinuationDue[] = [];
    const rig = await startRig(
      { turns: [{ content: 'ok' }] },
      {},
      {
        producers: false,
        beforeRestore: (sup) => {
          sup.steering.feed.onContinuationDue((d) => due.push(d));
          sup.steering.goalSet('r', OP, 'early', null);
          sup.steering.kick('r');
        },
      },
    );
    try {
      assert.deepEqual(
        due.map((d) => [d.ctx, d.goal.continuations]),
        [['r', 1]],
      );
      assert.equal(rig.sup.conversation('r')?.controls?.goal?.continuations, 1);
    } finally {
      await rig.close();
    }
  });
});
