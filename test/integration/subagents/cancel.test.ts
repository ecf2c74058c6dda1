// A sync subagent dies with its caller: cancelling the caller's task ends both processes within seconds, the
// caller's turn cancelled and the subagent's status cancelled. Budget: a subagent's spend reaches the instance and
// conversation windows, and a refused admission stops it with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentRecord } from '../../../src/domain/subagent.js';
import type { Store } from '../../../src/store/store.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { processGone, waitUntil, within } from '../wait.js';
import { notes, SUB } from './subagentParts.js';

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
      await waitUntil(() => groupGone(subPid) && processGone(callerPid), 10_000, 'both processes are gone');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, "its caller's turn ended");
    } finally {
      await rig.close();
    }
  });
});

/** True once no process is left in the group `pgid` (a worker leads its own group). */
function groupGone(pgid: number): boolean {
  return processGone(-pgid);
}

describe('a sync caller that ends while its subagent is minted', () => {
  it('never leaves the subagent running: the record says its caller ended and no worker group is left', async () => {
    // The handle's sequence is held until the caller was cancelled: the sync run registers its caller's end only
    // after that await, when the turn's cleanups already ran. Without the fix the subagent is spawned afterwards
    // and runs on (its model answers after 60 s), so the record stays `running` and the wait below times out.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let minting = false;
    const holdSequence = (store: Store): Store => ({
      ...store,
      sequences: {
        ...store.sequences,
        next: async (key) => {
          if (key === 'subagent') {
            minting = true;
            await held;
          }
          return store.sequences.next(key);
        },
      },
    });
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'take forever' } }] }, { content: 'x' }],
      match: [{ when_contains: SUB, delay_ms: 60_000, content: 'never' }],
    };
    const rig = await startRig(playbook, {}, { wrapStore: holdSequence });
    try {
      const ev = (await rig.sup.accept({ context_id: 'root', text: 'go', principal: 'operator' })).record;
      await waitUntil(() => minting, 20_000, 'the subagent handle is being minted');
      rig.sup.cancelEvent(ev.id, 'operator cancel');
      assert.equal((await within(rig.sup.outcomeOf(ev.id), 10_000, 'the caller ends')).status, 'cancelled');
      const callerExit = () => rig.named('child.exit').some((e) => e.kind === 'turn');
      await waitUntil(callerExit, 10_000, "the caller's worker is reaped (its cleanups ran)");
      release();
      let record: SubagentRecord | undefined;
      await waitUntil(
        () => {
          void rig.store.subagents.list().then((all) => {
            record = all[0];
          });
          return record !== undefined && record.status !== 'spawned' && record.status !== 'running';
        },
        10_000,
        'the subagent record ends',
      );
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, "its caller's turn ended");
      // It never ran, so nothing returns to the caller's conversation. Premise: settled like any end, it posted
      // "subagent sub-1 cancelled: its caller's turn ended" there (the note is posted before the record is saved).
      assert.deepEqual(
        notes(rig.sup.conversation('root')?.messages).filter((n) => n.startsWith('subagent ')),
        [],
      );
      assert.equal(rig.named('subagent.spawn').length, 0, 'it was never spawned');
      for (const spawned of rig.named('subagent.spawn')) {
        const pid = spawned.pid as number;
        await waitUntil(() => groupGone(pid), 10_000, 'the subagent worker group is gone');
      }
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
