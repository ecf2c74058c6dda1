// A sync subagent dies with its caller: cancelling the caller's task ends both processes within seconds, the
// caller's turn cancelled and the subagent's status cancelled. Budget: a subagent's spend reaches the instance and
// conversation windows, and a refused admission stops it with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { processGone, waitUntil, within } from '../wait.js';
import { SUB } from './subagentParts.js';

describe('a sync subagent and its caller', () => {
  it('cancelling the caller cancels the subagent: both processes gone, both cancelled', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'take forever' } }] }, { content: 'x' }],
      match: [{ when_contains: SUB, delay_ms: 60_000, content: 'never' }],
    };
    const rig = await startRig(playbook);
    try {
      const ev = (await rig.sup.accept({ context_id: 'root', text: 'go', principal: 'operator' })).record;
      await waitUntil(() => rig.named('subagent.spawn').length === 1, 20_000, 'the subagent spawned');
      const subPid = rig.named('subagent.spawn')[0]?.pid as number;
      const callerPid = Number(rig.named('turn.spawn')[0]?.worker_pid);
      assert.equal(processGone(subPid) || processGone(callerPid), false, 'premise: both processes run');
      rig.sup.cancelEvent(ev.id, 'operator cancel');
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the caller ends');
      assert.equal(outcome.status, 'cancelled');
      await waitUntil(() => processGone(subPid) && processGone(callerPid), 10_000, 'both processes are gone');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, "its caller's turn ended");
    } finally {
      await rig.close();
    }
  });
});

describe('subagent budgets', () => {
  it("charges the instance and the caller's conversation; a refused admission stops it with the reason", async () => {
    const big = { prompt_tokens: 20_000, completion_tokens: 1 };
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'spend a lot' } }] }, { content: 'ok' }],
      match: [{ when_contains: SUB, usage: big, tool_calls: [{ name: 'memory.get', arguments: { key: 'k' } }] }],
    };
    const yaml =
      'intelligence:\n  budget:\n    windows: [{per: hour, tokens: 30000}]\n    on_exhausted: refuse\n' +
      'agent:\n  conversation_budget:\n    windows: [{per: hour, tokens: 1000000}]\n';
    const rig = await startRig(playbook, {}, { yaml });
    try {
      const ev = (await rig.sup.accept({ context_id: 'work', text: 'go', principal: 'operator' })).record;
      await within(rig.sup.outcomeOf(ev.id), 30_000, 'the caller ends');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.status, 'refused');
      assert.match(String(record?.error), /budget/);
      const rows = await rig.store.budget.load();
      const used = (scope: string) => rows.find((r) => r.scope === scope && r.window === 'hour')?.tokens ?? 0;
      assert.ok(used('instance') >= 20_000, `the instance window holds the subagent's spend (${used('instance')})`);
      assert.ok(used('conversation:work') >= 20_000, "and the caller's conversation window");
    } finally {
      await rig.close();
    }
  });
});
