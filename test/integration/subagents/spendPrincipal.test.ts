// A subagent's spend is charged to the principal its calls were admitted for, not to whoever owns the caller's
// conversation. Premise: the operator delegates in alice's conversation; charging through the conversation's owner
// put the operator's subagent spend on alice's quota window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { within } from '../wait.js';
import { SUB } from './subagentParts.js';

const YAML =
  'intelligence:\n  budget:\n    windows: [{per: hour, tokens: 10000000}]\n' +
  'a2a:\n  listen: http://127.0.0.1:0\n  principals:\n' +
  '    - {id: alice, role: user, match: {bearer: alice-token-abcdef}, ' +
  'quotas: {budget: {windows: [{per: hour, tokens: 1000000}]}}}\n';

describe('subagent spend', () => {
  it('is charged to the principal that was admitted, not the conversation owner', async () => {
    const big = { prompt_tokens: 20_000, completion_tokens: 1 };
    const playbook: Playbook = {
      turns: [{ content: 'ok' }, { content: 'ok' }, { content: 'ok' }],
      match: [
        { when_contains: SUB, usage: big, content: 'done' },
        {
          when_contains: 'delegate',
          times: 1,
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'x' } }],
        },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: YAML });
    try {
      const own = (await rig.sup.accept({ context_id: 'work', text: 'hi', principal: 'user:alice' })).record;
      assert.equal((await within(rig.sup.outcomeOf(own.id), 20_000, "alice's turn")).status, 'completed');
      const ev = (await rig.sup.accept({ context_id: 'work', text: 'delegate', principal: 'operator' })).record;
      assert.equal((await within(rig.sup.outcomeOf(ev.id), 30_000, "the operator's turn")).status, 'completed');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.requested_by.principal, 'operator');
      assert.equal(record?.status, 'completed');
      const rows = await rig.store.budget.load();
      const used = (scope: string) => rows.find((r) => r.scope === scope && r.window === 'hour')?.tokens ?? 0;
      assert.ok(used('instance') >= 20_000, `premise: the instance holds the subagent's spend (${used('instance')})`);
      assert.ok(
        used('principal:user:alice') < 20_000,
        `the operator's subagent is not (${used('principal:user:alice')})`,
      );
    } finally {
      await rig.close();
    }
  });
});
