// Families offered on demand (issue 14 item 5) with a real worker and the scripted model on the OpenAI wire: the
// model asks for a withheld family with `tools_more`, the worker offers it from the next round, and a call of one of
// its tools succeeds. Names are the wire's (`plan_create`): the dialect maps back only what the request offered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import { offeredTools } from '../doubles/scriptedModel.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const toolResults = (messages: readonly Msg[] | undefined) =>
  (messages ?? []).flatMap((m) => (m.role === 'tool' ? [m] : []));

const create = { name: 'plan_create', arguments: { goal: 'tidy', items: ['sort', 'file'] } };

/** Rules run first to last: the later requests of the turn hold the earlier texts too, so the newest comes first. */
const playbook = {
  turns: [{ content: 'done' }],
  match: [
    { when_contains: 'now shown: ', times: 1, tool_calls: [create] },
    { when_contains: 'not shown yet', times: 1, tool_calls: [{ name: 'tools_more', arguments: { family: 'plan' } }] },
    { when_contains: 'make a plan please', times: 1, tool_calls: [create] },
  ],
};

describe('tools.more', () => {
  it('offers a withheld family from the next round on, and its tool then runs', async () => {
    const rig = await startRig(playbook, { AGENTD_AGENT_PREFLIGHT: 'never' });
    try {
      const ev = (await rig.sup.accept({ context_id: 'c', text: 'make a plan please', principal: 'operator' })).record;
      assert.ok(ev);
      await within(rig.sup.outcomeOf(ev.id), 20_000, 'the turn');
      const [first, second, third] = rig.model.requests;
      // Premise: the plan family is withheld, so the first call of plan_create routes nowhere (and without
      // the worker's offer the third request would not carry plan_create either).
      assert.equal(offeredTools(first).includes('plan_create'), false, offeredTools(first).join(','));
      assert.ok(offeredTools(first).includes('tools_more'));
      assert.equal(offeredTools(second).includes('plan_create'), false);
      assert.ok(offeredTools(third).includes('plan_create'), offeredTools(third).join(','));
      assert.deepEqual(offeredTools(third).slice(0, offeredTools(first).length), offeredTools(first), 'appended');
      const [refused, more, created] = toolResults(rig.sup.conversation('c')?.messages);
      assert.equal(refused?.is_error, true);
      assert.match(String(refused?.content), /'plan_create' is not shown yet: call tools\.more with family "plan"/);
      assert.equal(more?.is_error, false);
      assert.match(String(more?.content), /now shown: plan\.create, plan\.get, plan\.update, plan\.clear/);
      assert.equal(created?.name, 'plan.create');
      assert.equal(created?.is_error, false, JSON.stringify(created?.content));
      assert.equal(rig.sup.conversation('c')?.plan?.goal, 'tidy');

      // The conversation now calls plan.*: its next turn is offered the family up front.
      const next = (await rig.sup.accept({ context_id: 'c', text: 'and now?', principal: 'operator' })).record;
      assert.ok(next);
      await within(rig.sup.outcomeOf(next.id), 20_000, 'the next turn');
      const nextFirst = rig.model.requests.find((r) => JSON.stringify(r.body).includes('and now?'));
      assert.ok(offeredTools(nextFirst).includes('plan_update'), offeredTools(nextFirst).join(','));
    } finally {
      await rig.close();
    }
  });
});
