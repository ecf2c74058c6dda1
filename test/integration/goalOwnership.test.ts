// goal.set and goal.clear from a turn are the operator's, as the goal.* A2A commands are (issue 13): a user's turn
// must not leave a goal that keeps starting turns with no message from anyone. A user's turn is not even shown
// them, and goal.clear (with goal.get and goal.complete) is shown once the conversation has a goal (issue 14).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import { offeredTools as toolNames } from '../doubles/scriptedModel.js';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

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
    // The operator's first continuation clears the goal it was started for: no more turns by themselves.
    { when_contains: '(continuation 1;', times: 1, tool_calls: [{ name: 'goal.clear', arguments: {} }] },
    { when_contains: 'operator: pursue this forever', times: 1, tool_calls: goalCalls },
    { when_contains: 'alice: pursue this forever', times: 1, tool_calls: goalCalls },
    { when_contains: 'pursue this forever', content: 'done' },
  ],
};

describe('goal tools in a turn', () => {
  it("are not offered to a user principal's turn, which leaves no goal; the operator's turn sets one", async () => {
    const rig = await startRig(playbook);
    try {
      // Premise: the same calls in the operator's turn set a goal (goal.clear is not offered yet: there was no
      // goal at launch), and the continuation that goal starts is offered goal.clear and clears it.
      const op = (
        await rig.sup.accept({ context_id: 'o', text: 'operator: pursue this forever', principal: 'operator' })
      ).record;
      assert.ok(op);
      await within(rig.sup.outcomeOf(op.id), 20_000, "the operator's turn");
      const [opSet, opClear] = toolResults(rig.sup.conversation('o')?.messages);
      assert.equal(opSet?.is_error, false, JSON.stringify(opSet?.content));
      assert.match(String(opClear?.content), /no such tool 'goal\.clear'/);
      await waitUntil(() => rig.named('goal.cleared').length === 1, 20_000, 'the continuation clears the goal');
      const continuation = rig.model.requests.find((r) => JSON.stringify(r.body).includes('(continuation 1;'));
      assert.ok(toolNames(continuation).includes('goal_clear'), toolNames(continuation).join(','));

      const ev = (
        await rig.sup.accept({ context_id: 'u', text: 'alice: pursue this forever', principal: 'user:alice' })
      ).record;
      assert.ok(ev);
      await within(rig.sup.outcomeOf(ev.id), 20_000, "alice's turn");
      const aliceCall = rig.model.requests.find((r) => JSON.stringify(r.body).includes('alice: pursue'));
      const shown = toolNames(aliceCall);
      assert.ok(shown.includes('goal_get') === false && !shown.includes('goal_set'), shown.join(','));
      assert.ok(shown.includes('memory_get'), 'the other tools are offered');
      const [set, clear] = toolResults(rig.sup.conversation('u')?.messages);
      assert.equal(set?.is_error, true);
      assert.match(String(set?.content), /no such tool 'goal\.set'/);
      assert.equal(clear?.is_error, true);
      assert.equal(rig.sup.conversation('u')?.controls?.goal ?? null, null, 'no goal was set');
      assert.equal(rig.named('goal.continued').length, 1, "only the operator's goal started a turn");
    } finally {
      await rig.close();
    }
  });
});
