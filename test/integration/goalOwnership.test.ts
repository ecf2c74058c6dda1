// goal.set and goal.clear from a turn are the operator's, as the goal.* A2A commands are (issue 13): a user's turn
// must not leave a goal that keeps starting turns with no message from anyone. A user's turn is not even shown
// them; the operator's turn is shown the whole goal family, so it can clear (or complete) a goal it sets (issue 14).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import { offeredTools as toolNames } from '../doubles/scriptedModel.js';
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
  it("are not offered to a user principal's turn, which leaves no goal; the operator's turn sets one", async () => {
    // Every family up front, so the first request lists what each turn can reach; with families on demand the
    // same split holds for tools.more's families (test/unit/supervisor/turnTools.test.ts).
    const rig = await startRig(playbook, { AGENTD_AGENT_TOOLS_ON_DEMAND: '' });
    try {
      // Premise: the same calls in the operator's turn set a goal and clear it again in that turn (goal.clear
      // used to be offered only when the conversation had a goal at launch: 'no such tool').
      const op = (
        await rig.sup.accept({ context_id: 'o', text: 'operator: pursue this forever', principal: 'operator' })
      ).record;
      assert.ok(op);
      await within(rig.sup.outcomeOf(op.id), 20_000, "the operator's turn");
      const [opSet, opClear] = toolResults(rig.sup.conversation('o')?.messages);
      assert.equal(opSet?.is_error, false, JSON.stringify(opSet?.content));
      assert.equal(opClear?.is_error, false, JSON.stringify(opClear?.content));
      const opCall = rig.model.requests.find((r) => JSON.stringify(r.body).includes('operator: pursue'));
      for (const name of ['goal_set', 'goal_get', 'goal_complete', 'goal_clear']) {
        assert.ok(toolNames(opCall).includes(name), name);
      }
      assert.equal(rig.named('goal.cleared').length, 1, 'the turn cleared the goal it set');
      assert.equal(rig.sup.conversation('o')?.controls?.goal ?? null, null);

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
      assert.equal(rig.named('goal.continued').length, 0, 'no goal was left to start a turn');
    } finally {
      await rig.close();
    }
  });
});
