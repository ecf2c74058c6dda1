// A user's turn reaches only its own principal's work (issue 13 item 6): message.send into another principal's
// conversation is a tool error before anything is accepted, and `status` counts only the caller's own work.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const ALICE = 'user:alice';
const BOB = 'user:bob';

/** The tool results the model was sent, as text (OpenAI wire: `role: tool` messages). */
function toolResults(requests: ReadonlyArray<{ body: unknown }>): string[] {
  return requests.flatMap((r) => {
    const messages = (r.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
    return messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
  });
}

describe('a user turn and other principals’ conversations', { timeout: 60_000 }, () => {
  it('message.send into a conversation of another principal is refused to the sender; the owner’s is untouched', async () => {
    const playbook = {
      turns: [{ content: 'ok' }, { content: 'understood' }],
      match: [
        {
          when_contains: 'tell bob',
          times: 1,
          tool_calls: [{ name: 'message.send', arguments: { to: 'bobs', text: 'sneaky' } }],
        },
      ],
    };
    const rig = await startRig(playbook);
    try {
      const hello = (await rig.sup.accept({ context_id: 'bobs', text: 'hello', principal: BOB })).record;
      await within(rig.sup.outcomeOf(hello.id), 30_000, 'bob’s turn');
      const before = structuredClone(rig.sup.conversation('bobs')?.messages);
      assert.ok(before && before.length >= 2, 'premise: bob owns a conversation with his turn in it');
      const sent = (await rig.sup.accept({ context_id: 'a', text: 'tell bob', principal: ALICE })).record;
      const outcome = await within(rig.sup.outcomeOf(sent.id), 30_000, 'alice’s turn');
      assert.equal(outcome.status, 'completed');
      const results = toolResults(rig.model.requests);
      assert.ok(
        results.some((r) => r.includes('conversation \\"bobs\\" is not available')),
        `the sender's tool result says so: ${results.join(' | ')}`,
      );
      assert.ok(!results.some((r) => r.includes('delivered')), 'the model is never told it was delivered');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.deepEqual(rig.sup.conversation('bobs')?.messages, before, 'bob’s conversation gained nothing');
      // Without the check the delivery was accepted (message.delivered) and refused only at launch
      // (turn.refused.not_owner), which left its failure note in bob's conversation.
      assert.equal(rig.named('message.delivered').length, 0);
      assert.equal(rig.named('turn.refused.not_owner').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('the refusal holds when the owner’s conversation was evicted from memory', async () => {
    const playbook = {
      turns: [{ content: 'ok' }],
      match: [
        {
          when_contains: 'tell bob',
          times: 1,
          tool_calls: [{ name: 'message.send', arguments: { to: 'bobs', text: 'sneaky' } }],
        },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'store:\n  conversation_cache:\n    entries: 1\n' });
    try {
      for (const [ctx, principal] of [
        ['bobs', BOB],
        ['other-1', BOB],
        ['other-2', BOB],
      ] as const) {
        const rec = (await rig.sup.accept({ context_id: ctx, text: 'hello', principal })).record;
        await within(rig.sup.outcomeOf(rec.id), 30_000, `the turn in ${ctx}`);
      }
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.sup.conversation('bobs'), undefined, 'premise: bob’s conversation is no longer in memory');
      const sent = (await rig.sup.accept({ context_id: 'a', text: 'tell bob', principal: ALICE })).record;
      await within(rig.sup.outcomeOf(sent.id), 30_000, 'alice’s turn');
      const results = toolResults(rig.model.requests);
      assert.ok(
        results.some((r) => r.includes('conversation \\"bobs\\" is not available')),
        `an evicted conversation keeps its owner: ${results.join(' | ')}`,
      );
      assert.equal(rig.named('message.delivered').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('status in a user’s turn counts only that principal’s work; the operator’s sees the instance', async () => {
    const playbook = {
      turns: [{ content: 'ok' }, { content: 'counted' }],
      match: [
        { when_contains: 'how busy am I', times: 1, tool_calls: [{ name: 'status', arguments: {} }] },
        { when_contains: 'how busy is it', times: 1, tool_calls: [{ name: 'status', arguments: {} }] },
      ],
    };
    const rig = await startRig(playbook);
    try {
      for (const [ctx, principal] of [
        ['b1', BOB],
        ['b2', BOB],
      ] as const) {
        const ev = (await rig.sup.accept({ context_id: ctx, text: 'hello', principal })).record;
        await within(rig.sup.outcomeOf(ev.id), 30_000, `turn in ${ctx}`);
      }
      const mine = (await rig.sup.accept({ context_id: 'a', text: 'how busy am I', principal: ALICE })).record;
      await within(rig.sup.outcomeOf(mine.id), 30_000, 'alice’s turn');
      const op = (await rig.sup.accept({ context_id: 'o', text: 'how busy is it', principal: 'operator' })).record;
      await within(rig.sup.outcomeOf(op.id), 30_000, 'the operator’s turn');
      const [alice, operator] = toolResults(rig.model.requests)
        .filter((r) => r.includes('running_turns'))
        .map((r) => JSON.parse(JSON.parse(r)) as { conversations: number; running_turns: number });
      assert.equal(operator?.conversations, 4, 'premise: the instance holds four conversations');
      assert.equal(alice?.conversations, 1, 'alice sees only her own');
      assert.equal(alice?.running_turns, 1, 'and only her own running turn');
    } finally {
      await rig.close();
    }
  });
});

// Judged where the delivery is accepted: a target that another principal's queued message will open before the
// delivery launches (a name in its A2A namespace) is refused to the sender, never reported delivered.
describe('message.send into a conversation that does not exist yet', { timeout: 60_000 }, () => {
  it("is refused to a user's turn in another principal's namespace; the owner's conversation is untouched", async () => {
    const playbook = {
      turns: [{ content: 'ok' }],
      match: [
        {
          when_contains: 'ping later please',
          times: 1,
          delay_ms: 1_000,
          tool_calls: [{ name: 'message.send', arguments: { to: 'user:bob/later', text: 'sneaky' } }],
        },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  max_parallel_turns: 1\n' });
    try {
      const sent = (await rig.sup.accept({ context_id: 'a', text: 'ping later please', principal: ALICE })).record;
      await waitUntil(() => rig.model.requests.length === 1, 10_000, "alice's turn asks the model");
      // Bob's message (an A2A context of his: "user:bob/…") queues behind alice's turn (one slot): the
      // conversation does not exist yet when she sends.
      const bobs = (await rig.sup.accept({ context_id: 'user:bob/later', text: 'hello', principal: BOB })).record;
      await within(rig.sup.outcomeOf(sent.id), 30_000, "alice's turn");
      await within(rig.sup.outcomeOf(bobs.id), 30_000, "bob's turn");
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      const results = toolResults(rig.model.requests);
      assert.ok(
        results.some((r) => r.includes('conversation \\"user:bob/later\\" is not available')),
        `the sender is told: ${results.join(' | ')}`,
      );
      // Premise: judged only by the tool (before the accept) "later" was nobody's, the model was told
      // {delivered: true}, and the delivery was refused at its launch once bob's turn had opened "later".
      assert.ok(!results.some((r) => r.includes('delivered')), 'never reported delivered');
      assert.equal(rig.named('turn.refused.not_owner').length, 0, 'nothing accepted is refused later');
      assert.equal(rig.named('message.refused').length, 1);
      assert.equal(rig.sup.conversation('user:bob/later')?.principal, BOB);
      const texts = (rig.sup.conversation('user:bob/later')?.messages ?? []).map(
        (m) => ('text' in m ? m.text : '') ?? '',
      );
      assert.ok(!texts.some((t) => t.includes('sneaky') || t.includes('refused')), texts.join(' | '));
    } finally {
      await rig.close();
    }
  });
});
