// The child table with real workers: a think child dies with the turn that asked for it, and think children are
// charged by the same usage rule as turns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../src/domain/inbox.js';
import type { Playbook, Turn } from '../doubles/scriptedModel.js';
import { type Rig, startRig } from './harness.js';
import { processGone, waitUntil, within } from './wait.js';

/** A turn that calls `think` once; the think child's model call answers with `thought`. */
function consulting(thought: Turn): Playbook {
  return {
    turns: [{ content: 'thought it through' }],
    match: [
      { when_contains: 'reasoning module', ...thought },
      { when_contains: 'consult yourself', times: 1, tool_calls: [{ name: 'think', arguments: { prompt: 'Ship?' } }] },
    ],
  };
}

async function consult(rig: Rig): Promise<InboxEvent> {
  const ev = (await rig.sup.accept({ context_id: 't', text: 'consult yourself', principal: 'operator' })).record;
  assert.ok(ev);
  return ev;
}

describe('the child table', () => {
  it('a think child dies with the turn that asked for it', async () => {
    const rig = await startRig(consulting({ content: { verdict: 'too late' }, delay_ms: 60_000 }));
    try {
      const ev = await consult(rig);
      await waitUntil(() => rig.named('think.spawn').length === 1, 10_000, 'the think child starts');
      const thinker = Number(rig.named('think.spawn')[0]?.worker_pid);
      await waitUntil(() => rig.model.requests.length === 2, 10_000, 'the think child calls the model');
      assert.ok(!processGone(thinker), 'premise: the think child is running');
      assert.ok(rig.sup.cancel('t'));
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the cancelled turn');
      assert.equal(outcome.status, 'cancelled');
      await waitUntil(() => processGone(thinker), 10_000, 'the think child is killed');
      const kill = rig.named('turn.kill').find((e) => e.worker_pid === thinker);
      assert.equal(kill?.kind, 'think');
      assert.equal(kill?.reason, 'its turn ended');
      assert.equal(rig.named('child.exit').find((e) => e.worker_pid === thinker)?.signal, 'SIGKILL');
    } finally {
      await rig.close();
    }
  });

  it('a think child is charged what it reports, counted under its purpose', async () => {
    const rig = await startRig(consulting({ content: { verdict: 'ship it' } }));
    try {
      const ev = await consult(rig);
      assert.equal((await within(rig.sup.outcomeOf(ev.id), 30_000, 'think turn')).status, 'completed');
      // The scripted model reports 11 in / 5 out per call: one call by the think child, two by the turn.
      const metrics = await rig.sup.metrics.render();
      assert.match(metrics, /agentd_tokens_total\{direction="in",kind="think"\} 11\b/);
      assert.match(metrics, /agentd_tokens_total\{direction="out",kind="think"\} 5\b/);
      assert.match(metrics, /agentd_tokens_total\{direction="in",kind="turn"\} 22\b/);
    } finally {
      await rig.close();
    }
  });
});
