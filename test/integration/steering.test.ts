// Plan mode, goals and side tasks with real workers and the scripted model (seed 003 behaviours).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import type { Playbook } from '../doubles/scriptedModel.js';
import { type Rig, startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';

function toolResults(messages: readonly Msg[] | undefined) {
  return (messages ?? []).flatMap((m) => (m.role === 'tool' ? [m] : []));
}

function userTexts(rig: Rig, ctx: string): string[] {
  return (rig.sup.conversation(ctx)?.messages ?? []).flatMap((m) => (m.role === 'user' ? [m.text] : []));
}

async function settle(rig: Rig): Promise<void> {
  // A fold may enqueue the next continuation: idle twice in a row means nothing more is coming.
  await within(rig.sup.whenIdle(), 30_000, 'idle');
  await new Promise((r) => setTimeout(r, 50));
  await within(rig.sup.whenIdle(), 30_000, 'still idle');
}

describe('plan mode', () => {
  it('refuses write tools, runs read-only ones, leaves the checklist alone and records the proposal', async () => {
    const rig = await startRig({
      turns: [{ content: 'ok' }],
      match: [
        // The execute turn's request holds the plan-mode turn too: its rule comes first.
        {
          when_contains: 'now do it',
          tool_calls: [{ name: 'memory.set', arguments: { key: 'notes', value: 'x' } }],
          times: 1,
        },
        {
          when_contains: 'tidy the notes',
          times: 1,
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'notes', value: 'tidied' } },
            { name: 'memory.get', arguments: { key: 'notes' } },
            { name: 'plan.create', arguments: { goal: 'tidy', items: ['sort'] } },
          ],
        },
        { when_contains: 'tidy the notes', content: 'Proposal: 1. sort the notes 2. drop duplicates' },
      ],
    });
    try {
      rig.sup.steering.setMode('p', OP, 'plan');
      const ev = (await rig.sup.accept({ context_id: 'p', text: 'tidy the notes', principal: OP })).record;
      assert.ok(ev);
      const outcome = await within(rig.sup.outcomeOf(ev.id), 20_000, 'the plan-mode turn');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'Proposal: 1. sort the notes 2. drop duplicates');
      const conv = rig.sup.conversation('p');
      const [set, get, plan] = toolResults(conv?.messages);
      assert.equal(set?.is_error, true);
      assert.match(String(set?.content), /plan mode forbids/);
      assert.equal(get?.is_error, false, 'a read-only tool runs');
      assert.equal(plan?.is_error, true, 'plan.create changes the checklist: refused');
      assert.equal(conv?.plan, null, 'the checklist is untouched');
      assert.equal(await rig.store.memory.get('notes', Date.now()), null, 'nothing was written');
      assert.equal(conv?.controls?.proposal?.text, outcome.reply, 'the proposal is kept apart from the plan');
      assert.equal(rig.named('proposal').length, 1);
      assert.match(JSON.stringify(rig.model.requests[0]?.body), /Plan mode: investigate with read-only tools/);

      // Leaving plan mode is the caller's act; the next message runs in execute mode.
      rig.sup.steering.setMode('p', OP, 'execute');
      const next = (await rig.sup.accept({ context_id: 'p', text: 'now do it', principal: OP })).record;
      assert.ok(next);
      await within(rig.sup.outcomeOf(next.id), 20_000, 'the execute turn');
      assert.equal(toolResults(rig.sup.conversation('p')?.messages).at(-1)?.is_error, false);
      assert.equal((await rig.store.memory.get('notes', Date.now()))?.value, 'x');
    } finally {
      await rig.close();
    }
  });
});

const goalBook: Playbook = {
  turns: [{ content: 'ok' }],
  match: [
    { when_contains: 'Evidence: count is 3', content: '{"achieved": true, "reason": "the count is 3"}' },
    { when_contains: 'Evidence: trust me', content: '{"achieved": false, "reason": "no count shown"}' },
    {
      when_contains: 'continuation 3;',
      times: 1,
      tool_calls: [{ name: 'goal.complete', arguments: { evidence: 'trust me' } }],
    },
    {
      when_contains: 'continuation 3;',
      times: 1,
      tool_calls: [{ name: 'goal.complete', arguments: { evidence: 'count is 3' } }],
    },
    {
      when_contains: 'continuation 2;',
      times: 1,
      tool_calls: [{ name: 'memory.set', arguments: { key: 'n', value: 2 } }],
    },
    {
      when_contains: 'continuation 1;',
      times: 1,
      delay_ms: 800,
      tool_calls: [{ name: 'memory.set', arguments: { key: 'n', value: 1 } }],
    },
  ],
};

describe('goals', () => {
  it('keep a conversation working without new messages, yield to a user message, complete only with accepted evidence', async () => {
    const rig = await startRig(goalBook);
    try {
      rig.sup.steering.goalSet('g', OP, 'count to three', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => rig.named('goal.continued').length === 1, 20_000, 'the first continuation');
      // A person writes while the goal works: the message goes before the next continuation.
      const user = (await rig.sup.accept({ context_id: 'g', text: 'by the way, hello', principal: OP })).record;
      assert.ok(user);
      // A reused worker frees the conversation before its fold commits: idle can come between a fold and the
      // continuation the goal producer accepts after it, so wait for the outcome, then for quiet.
      await waitUntil(() => rig.named('goal.achieved').length === 1, 20_000, 'the goal is achieved');
      await settle(rig);
      const texts = userTexts(rig, 'g');
      assert.equal(texts.length, 4, texts.join(' | '));
      assert.match(texts[0] ?? '', /continuation 1;/);
      assert.equal(texts[1], 'by the way, hello');
      assert.match(texts[2] ?? '', /continuation 2;/);
      assert.match(texts[3] ?? '', /continuation 3;/);
      const goal = rig.sup.conversation('g')?.controls?.goal;
      assert.equal(goal?.status, 'achieved');
      assert.equal(goal?.evidence, 'count is 3');
      const results = toolResults(rig.sup.conversation('g')?.messages).filter((m) => m.name === 'goal.complete');
      assert.equal(results[0]?.is_error, true);
      assert.match(String(results[0]?.content), /did not accept the evidence: no count shown/);
      assert.equal(results[1]?.is_error, false);
      const [achieved] = rig.named('goal.achieved');
      assert.equal(achieved?.turns, 4, 'every turn while the goal was active, the user turn and the achieving one too');
      assert.equal(goal?.turns, 4);
      assert.ok(Number(achieved?.tokens) > 0);
      assert.equal(rig.named('goal.continued').length, 3, 'nothing continues after the goal is achieved');
    } finally {
      await rig.close();
    }
  });

  it('is marked stuck after two continuations without a tool call', async () => {
    const rig = await startRig({ turns: [{ content: 'thinking about it' }] });
    try {
      rig.sup.steering.goalSet('s', OP, 'something vague', null);
      rig.sup.steering.kick('s');
      await waitUntil(() => rig.named('goal.stuck').length === 1, 20_000, 'stuck');
      await settle(rig);
      assert.equal(rig.named('goal.continued').length, 2);
      assert.equal(rig.sup.conversation('s')?.controls?.goal?.status, 'stuck');
    } finally {
      await rig.close();
    }
  });

  it('stops at its token budget, and does not continue while paused', async () => {
    const rig = await startRig({
      turns: [{ tool_calls: [{ name: 'memory.get', arguments: { key: 'k' } }] }, { content: 'step' }],
    });
    try {
      rig.sup.steering.goalSet('b', OP, 'spend', 40);
      rig.sup.steering.kick('b');
      await waitUntil(() => rig.named('goal.budget_limited').length === 1, 20_000, 'budget limited');
      await settle(rig);
      const goal = rig.sup.conversation('b')?.controls?.goal;
      assert.equal(goal?.status, 'budget_limited');
      assert.ok((goal?.tokens ?? 0) >= 40, 'premise: the turns spent the budget');

      rig.sup.steering.goalSet('q', OP, 'wait for me', null);
      rig.sup.pause();
      rig.sup.steering.kick('q');
      await settle(rig);
      assert.equal(userTexts(rig, 'q').length, 0, 'no continuation while paused');
      rig.sup.resume();
      await waitUntil(() => userTexts(rig, 'q').length > 0, 20_000, 'resume picks the goal up again');
      rig.sup.steering.goalClear('q', OP);
      await settle(rig);
    } finally {
      await rig.close();
    }
  });
});

describe('side tasks', () => {
  it('run in their own conversation of the same owner and report back to the parent as a note', async () => {
    const rig = await startRig({
      turns: [{ content: 'ok' }],
      match: [
        {
          when_contains: 'fork a side task',
          times: 1,
          tool_calls: [{ name: 'side.start', arguments: { instruction: 'research the side thing' } }],
        },
        { when_contains: 'research the side thing', content: 'side finding: 42' },
      ],
    });
    try {
      const ev = (await rig.sup.accept({ context_id: 'parent', text: 'fork a side task', principal: 'user:alice' }))
        .record;
      assert.ok(ev);
      await within(rig.sup.outcomeOf(ev.id), 20_000, 'the parent turn');
      await settle(rig);
      const [started] = toolResults(rig.sup.conversation('parent')?.messages);
      const side = String((started?.content as { conversation?: string } | undefined)?.conversation);
      assert.match(side, /^side-/);
      const sideConv = rig.sup.conversation(side);
      assert.equal(sideConv?.principal, 'user:alice');
      assert.equal(sideConv?.controls?.side_of, 'parent');
      assert.match(
        sideConv?.messages[0]?.role === 'note' ? sideConv.messages[0].text : '',
        /^Side task of conversation parent/,
      );
      const notes = (rig.sup.conversation('parent')?.messages ?? []).flatMap((m) =>
        m.role === 'note' && !m.text.startsWith('current date:') ? [m.text] : [],
      );
      assert.deepEqual(notes, [`side task ${side} completed: side finding: 42`]);

      const caller = {
        conversation: 'parent',
        principal: 'user:alice',
        turnId: 't',
        depth: 0,
        kind: 'conversation' as const,
      };
      const elsewhere = await rig.sup.steering.sidePromote({ ...caller, conversation: 'other' }, side);
      assert.match(elsewhere ?? '', /not a side task/);
      assert.equal(await rig.sup.steering.sidePromote(caller, side), null);
      assert.equal(rig.sup.conversation(side)?.controls?.side_of, null, 'promoted: a normal conversation now');
    } finally {
      await rig.close();
    }
  });
});
