// A job that folds without a turn frees its conversation at once: a message cancelled while its preflight runs
// (and whose verdict is then ignored), and a turn the budget refuses, never stall the next message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';
const VERDICT = '{"intent":"task","needs_plan":true,"plan":[{"title":"Delete prod"}],"risk":"high"}';

describe('jobs that end without a turn', () => {
  it('a message cancelled during its preflight: no stale plan, and the next message runs', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'ok' }],
        match: [{ when_contains: 'please fix prod', times: 1, delay_ms: 3_000, content: VERDICT }],
      },
      { AGENTD_AGENT_PREFLIGHT: 'always' },
    );
    try {
      const first = (await rig.sup.accept({ context_id: 'c', text: 'please fix prod', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c', text: 'second', principal: OP })).record;
      assert.ok(first && second);
      await waitUntil(() => rig.named('preflight.start').length === 1, 10_000, 'the preflight runs');
      rig.sup.cancelEvent(first.id, 'changed my mind');
      assert.equal((await within(rig.sup.outcomeOf(first.id), 10_000, 'the cancel')).status, 'cancelled');
      assert.equal((await within(rig.sup.outcomeOf(second.id), 20_000, 'the next message')).status, 'completed');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.sup.conversation('c')?.plan, null, 'the cancelled preflight left no plan');
      assert.equal(rig.named('preflight.verdict').filter((e) => e.needs_plan === true).length, 0);
    } finally {
      await rig.close();
    }
  });

  it('two messages of one conversation under refuse: both are refused, neither waits', async () => {
    const yaml = 'intelligence:\n  budget:\n    windows: [{per: hour, tokens: 1000}]\n    on_exhausted: refuse\n';
    const rig = await startRig({ turns: [{ content: 'never' }] }, { AGENTD_AGENT_PREFLIGHT: 'never' }, { yaml });
    try {
      const first = (await rig.sup.accept({ context_id: 'c', text: 'one', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c', text: 'two', principal: OP })).record;
      assert.ok(first && second);
      const outcomes = await within(
        Promise.all([rig.sup.outcomeOf(first.id), rig.sup.outcomeOf(second.id)]),
        20_000,
        'both refusals',
      );
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['refused', 'refused'],
      );
      assert.match(String(outcomes[1]?.error), /refused: budget exhausted \(instance hour window\)/);
      assert.equal(rig.model.requests.length, 0);
    } finally {
      await rig.close();
    }
  });
});
