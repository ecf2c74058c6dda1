// goal.set and goal.clear from a turn are the operator's, as the goal.* A2A commands are (issue 13): a user's turn
// must not leave a goal that keeps starting turns with no message from anyone. side.start stays open to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const toolResults = (messages: readonly Msg[] | undefined) =>
  (messages ?? []).flatMap((m) => (m.role === 'tool' ? [m] : []));

const goalCalls = [
  { name: 'goal.set', arguments: { objective: 'keep working without being asked' } },
  { name: 'goal.clear', arguments: {} },
];
/** Each turn's first request calls both tools; its next request (holding their results) answers. */
const playbook = {
  turns: [{ content: 'ok' }],
  match: [
    { when_contains: 'operator: pursue this forever', times: 1, tool_calls: goalCalls },
    { when_contains: 'alice: pursue this forever', times: 1, tool_calls: goalCalls },
    { when_contains: 'pursue this forever', content: 'done' },
  ],
};

describe('goal tools in a turn', () => {
  it("refuse a user principal's turn and leave no goal; the operator's turn sets one", async () => {
    const rig = await startRig(playbook);
    try {
      // Premise: the same tool calls in the operator's turn do set a goal (cleared right after), so the refusal
      // below is the principal check, not a missing tool.
      const op = (
        await rig.sup.accept({ context_id: 'o', text: 'operator: pursue this forever', principal: 'operator' })
      ).record;
      assert.ok(op);
      await within(rig.sup.outcomeOf(op.id), 20_000, "the operator's turn");
      const [opSet, opClear] = toolResults(rig.sup.conversation('o')?.messages);
      assert.equal(opSet?.is_error, false, JSON.stringify(opSet?.content));
      assert.deepEqual(opClear?.content, { cleared: true });

      const ev = (
        await rig.sup.accept({ context_id: 'u', text: 'alice: pursue this forever', principal: 'user:alice' })
      ).record;
      assert.ok(ev);
      await within(rig.sup.outcomeOf(ev.id), 20_000, "alice's turn");
      const [set, clear] = toolResults(rig.sup.conversation('u')?.messages);
      assert.equal(set?.is_error, true);
      assert.match(String(set?.content), /^goal\.set: goals are the operator's; a turn for user:alice may not/);
      assert.equal(clear?.is_error, true);
      assert.match(String(clear?.content), /^goal\.clear: goals are the operator's/);
      assert.equal(rig.sup.conversation('u')?.controls?.goal ?? null, null, 'no goal was set');
      assert.equal(rig.named('goal.continued').length, 0, 'no turn started by itself');
    } finally {
      await rig.close();
    }
  });
});
