// The edges of steering: a queued continuation never outlives its goal or jumps a waiting message; wake turns act
// for the sender's owner and stay inside the hop limit; side tasks nest only so deep; controls survive a restart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';
const ALICE = 'user:alice';

const users = (messages: readonly Msg[] | undefined) => (messages ?? []).flatMap((m) => (m.role === 'user' ? [m] : []));

describe('goal continuations in the queue', () => {
  const slow = { when_contains: 'hold the slot', content: 'held', delay_ms: 1_500 };

  it('a goal cleared while its continuation waits for a slot: the continuation never runs', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [slow] }, { AGENTD_AGENT_MAX_PARALLEL_TURNS: '1' });
    try {
      const busy = (await rig.sup.accept({ context_id: 'x', text: 'hold the slot', principal: OP })).record;
      assert.ok(busy);
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the slot is taken');
      rig.sup.steering.goalSet('g', OP, 'something', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => rig.named('goal.continued').length === 1, 5_000, 'premise: a continuation is queued');
      rig.sup.steering.goalClear('g', OP);
      await waitUntil(() => rig.named('goal.continuation.dropped').length === 1, 20_000, 'dropped');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const [dropped] = rig.named('goal.continuation.dropped');
      assert.equal(dropped?.reason, 'the goal is no longer active');
      assert.equal(users(rig.sup.conversation('g')?.messages).length, 0, 'no continuation message was run');
      // The dropped continuation is marked by its kind, not its text.
      const stored = await rig.store.inbox.find(String(dropped?.inbox_event));
      assert.equal(stored?.outcome?.status, 'cancelled');
      assert.equal(stored?.outcome?.error_kind, 'stale');
      // Premise: its outcome is `cancelled`, which a turn that ran would note; no turn ran, so the model reads no
      // "turn ended with status cancelled: goal continuation dropped" (issue 13 item 12).
      const notes = (rig.sup.conversation('g')?.messages ?? []).filter((m) => m.role === 'note');
      assert.deepEqual(notes, [], 'the dropped continuation left no note');
    } finally {
      await rig.close();
    }
  });

  it('a message that arrives while a continuation waits goes first; the goal goes on after it', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [slow] }, { AGENTD_AGENT_MAX_PARALLEL_TURNS: '1' });
    try {
      await rig.sup.accept({ context_id: 'x', text: 'hold the slot', principal: OP });
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the slot is taken');
      rig.sup.steering.goalSet('g', OP, 'something', null);
      rig.sup.steering.kick('g');
      await rig.sup.accept({ context_id: 'g', text: 'a person writes', principal: OP });
      const continued = () => users(rig.sup.conversation('g')?.messages).length >= 2;
      await waitUntil(continued, 20_000, 'the goal continues after the message');
      rig.sup.steering.goalClear('g', OP);
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const texts = users(rig.sup.conversation('g')?.messages).map((m) => m.text);
      assert.equal(texts[0], 'a person writes');
      assert.match(texts[1] ?? '', /^\[goal\] Continue/);
      assert.equal(rig.named('goal.continuation.dropped')[0]?.reason, 'a message for the conversation goes first');
    } finally {
      await rig.close();
    }
  });
});

describe('wake turns and side tasks stay bounded', () => {
  const delegate = {
    when_contains: 'delegate please',
    times: 1,
    tool_calls: [{ name: 'message.send', arguments: { to: 'b', text: 'do the part' } }],
  };

  it('on_workflow_finished: think acts for the sender owner, one hop deeper than the run', async () => {
    const rig = await startRig(
      { turns: [{ content: 'ok' }], match: [delegate] },
      { AGENTD_AGENT_ON_WORKFLOW_FINISHED: 'think' },
    );
    try {
      const ev = (await rig.sup.accept({ context_id: 'a', text: 'delegate please', principal: ALICE })).record;
      assert.ok(ev);
      const woke = () => users(rig.sup.conversation('a')?.messages).some((m) => m.text.startsWith('run in b'));
      await waitUntil(woke, 20_000, 'the wake turn');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const wake = users(rig.sup.conversation('a')?.messages).find((m) => m.text.startsWith('run in b'));
      assert.equal(wake?.principal, ALICE, 'never a turn for nobody in alice’s conversation');
      const event = await rig.store.inbox.find(wake?.event ?? '');
      assert.equal(event?.payload.msg_depth, 2, 'the run was depth 1');
    } finally {
      await rig.close();
    }
  });

  it('past limits.max_message_depth the wake is only noted, and a side task cannot fork again', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'ok' }],
        match: [
          delegate,
          {
            when_contains: 'fork once',
            times: 1,
            tool_calls: [{ name: 'side.start', arguments: { instruction: 'fork twice' } }],
          },
          {
            // Only the side task reads its seed note (the parent's own follow-up also holds "fork twice").
            when_contains: 'Side task of conversation p',
            times: 1,
            tool_calls: [{ name: 'side.start', arguments: { instruction: 'too deep' } }],
          },
        ],
      },
      { AGENTD_AGENT_ON_WORKFLOW_FINISHED: 'think', AGENTD_LIMITS_MAX_MESSAGE_DEPTH: '1' },
    );
    try {
      await within(
        rig.sup.outcomeOf(
          (await rig.sup.accept({ context_id: 'a', text: 'delegate please', principal: ALICE })).record!.id,
        ),
        20_000,
        'a',
      );
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const notes = (rig.sup.conversation('a')?.messages ?? []).flatMap((m) => (m.role === 'note' ? [m.text] : []));
      assert.ok(
        notes.some((n) => /no turn: hop depth 2 exceeds limits\.max_message_depth/.test(n)),
        notes.join(' | '),
      );
      assert.ok(!users(rig.sup.conversation('a')?.messages).some((m) => m.text.startsWith('run in b')));

      await within(
        rig.sup.outcomeOf((await rig.sup.accept({ context_id: 'p', text: 'fork once', principal: ALICE })).record!.id),
        20_000,
        'p',
      );
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const side = rig.named('side.started');
      assert.equal(side.length, 1, 'only the first fork started');
      const nested = rig.sup.conversation(String(side[0]?.side))?.messages.find((m) => m.role === 'tool');
      assert.equal(nested?.role === 'tool' && nested.is_error, true);
      assert.match(String(nested?.role === 'tool' ? nested.content : ''), /max_message_depth/);
    } finally {
      await rig.close();
    }
  });
});

describe('controls across a restart', () => {
  it('a conversation keeps its mode and its goal, and an idle active goal picks up again', async () => {
    const first = await startRig({ turns: [{ content: 'ok' }] }, { AGENTD_AGENT_MAX_PARALLEL_TURNS: '1' });
    const dir = first.dir;
    first.sup.steering.setMode('m', OP, 'plan');
    first.sup.pause();
    first.sup.steering.goalSet('g', OP, 'keep going', 1);
    await first.close();
    const second = await startRig({ turns: [{ content: 'ok' }] }, {}, { dir });
    try {
      // 'm' has no pending work: the restore leaves it on disk until something uses it.
      assert.equal(second.sup.conversation('m'), undefined);
      await second.sup.intake.load('m');
      assert.equal(second.sup.conversation('m')?.controls?.mode, 'plan');
      await waitUntil(() => second.named('goal.continued').length === 1, 20_000, 'the goal picks up after the restart');
      await waitUntil(() => second.named('goal.budget_limited').length === 1, 20_000, 'and stops at its budget');
    } finally {
      await second.close();
    }
  });
});
