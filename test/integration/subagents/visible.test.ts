// Subagents as the operator and other principals see them (issue 15 items 7 and 8), over a real supervisor, worker
// processes, a SQLite store and the A2A task backend: live subagents in status (principal-scoped), their worker's
// progress as activity of the conversation that started them, and subagent.status / kill / send / list as A2A
// commands.
// Premises: mallory's refusals are the scoping's (the operator's same commands answer); before this, the worker's
// progress frames were dropped (no `activity` line named a subagent) and status had no `subagents` entry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal, SendRequest } from '../../../src/a2a/backend.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, type Rig, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB } from './subagentParts.js';

const OPERATOR: Principal = { id: 'operator', role: 'operator', grants: [] };
const MALLORY: Principal = { id: 'mallory', role: 'user', grants: [] };

/** One A2A command through the task backend; its parsed result. */
async function command(rig: Rig, who: Principal, op: string, args: Record<string, unknown>): Promise<unknown> {
  const req: SendRequest = { text: '', contextId: 'ops', command: { op, args } };
  const task = await (rig.backend as NonNullable<Rig['backend']>).send(who, req);
  return JSON.parse(task.result ?? 'null');
}

describe('subagents seen from outside (status, activity, A2A commands)', { timeout: 60_000 }, () => {
  it('shows live subagents by principal, their activity on the parent, and answers commands by owner', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'warm', mode: 'warm' } }] },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'run answer' }],
    };
    const rig = await startRig(playbook, {}, { tasks: true });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      await waitUntil(() => rig.named('subagent.turn').length === 1, 10_000, 'the first run');
      const live = [{ handle: 'sub-1', mode: 'warm', status: 'running', depth: 1 }];
      assert.deepEqual(rig.sup.status().subagents, live);
      assert.deepEqual(rig.sup.status('mallory').subagents, [], "mallory's status shows none");
      const activity = rig.events.find((e) => e.event === 'activity' && e.subagent === 'sub-1');
      assert.equal(activity?.ctx, 'root', "the subagent's activity is its caller's conversation's");

      for (const [op, error] of [
        ['subagent.status', 'no such subagent "sub-1"'],
        ['subagent.kill', 'subagent "sub-1" is not running'],
        ['subagent.send', 'subagent "sub-1" is not running'],
      ] as const) {
        await assert.rejects(command(rig, MALLORY, op, { handle: 'sub-1', message: 'hi' }), { message: error });
      }
      assert.equal(rig.named('subagent.kill').length, 0, "mallory's kill reached nothing");
      const listOf = async (who: Principal) =>
        ((await command(rig, who, 'subagent.list', {})) as { subagents: Array<{ handle: string }> }).subagents;
      assert.deepEqual(await listOf(MALLORY), [], "mallory's list shows none");
      assert.deepEqual(
        (await listOf(OPERATOR)).map((s) => s.handle),
        ['sub-1'],
        "the operator's list shows the subagent",
      );

      const status = (await command(rig, OPERATOR, 'subagent.status', { handle: 'sub-1' })) as { status?: string };
      assert.equal(status.status, 'running');
      const sent = await command(rig, OPERATOR, 'subagent.send', { handle: 'sub-1', message: 'second message' });
      assert.deepEqual(sent, { ok: true, handle: 'sub-1' });
      await waitUntil(() => rig.named('subagent.turn').length === 2, 10_000, 'the injected run');
      const killed = await command(rig, OPERATOR, 'subagent.kill', { handle: 'sub-1', reason: 'enough' });
      assert.deepEqual(killed, { ok: true, handle: 'sub-1' });
      const after = (await command(rig, OPERATOR, 'subagent.status', { handle: 'sub-1' })) as { status?: string };
      assert.equal(after.status, 'cancelled');
      assert.deepEqual(rig.sup.status().subagents, [], 'an ended subagent leaves the status');
    } finally {
      await rig.close();
    }
  });
});
