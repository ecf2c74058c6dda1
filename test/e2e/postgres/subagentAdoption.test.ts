// Subagents across replicas (issue 19; interfaces reference §4.4): a subagent is its own conversation, leased and
// adopted like any. A turn on R1 starts a sync subagent and waits on it; R1 is SIGKILLed inside the subagent's model
// call. R2 adopts both the caller's conversation and the subagent's lease: it respawns sub-1 (attempt 2), the
// caller's rerun makes the same subagent.run call and gets sub-1 (no second subagent), and the result reaches the
// caller's turn once. Premise: before, R2 never respawned sub-1 (it restores only at its own start) and the rerun
// started a second subagent, sub-2.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { query, replicaYaml, startReplicas } from './replicaFleet.js';

const SUB = 'You are a subagent of';

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a subagent whose replica dies', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('subagent_adoption');
    model = await startScriptedModel({
      // The caller: one sync subagent.run, then its answer once the result came back.
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'count the stars', mode: 'sync' } }] },
        { content: 'the caller is done' },
      ],
      // sub-1's first life (on R1) hangs; its respawn answers at once.
      match: [
        { when_contains: SUB, times: 1, delay_ms: 30_000, content: 'never stored' },
        { when_contains: SUB, content: 'forty-two stars' },
      ],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('R2 adopts the caller and the subagent; the caller gets the result once', async () => {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '2s'), 2, daemons)) as [Daemon, Daemon];
    const task = asTask(await (await clientFor(r1.url)).sendMessage(send('delegate the count', {}, true)));
    await waitUntil(() => r1.events.some((e) => e.event === 'subagent.spawn'), 20_000, 'R1 spawns sub-1');
    await waitUntil(
      () => model.requests.some((r) => JSON.stringify(r.body).includes(SUB)),
      20_000,
      "sub-1's model call on R1",
    );
    const exited = new Promise((resolve) => r1.child.once('exit', resolve));
    r1.child.kill('SIGKILL');
    await within(exited, 10_000, 'R1 exits');
    const respawned = () => r2.events.find((e) => e.event === 'subagent.respawn');
    await waitUntil(() => respawned() !== undefined, 30_000, 'R2 respawns sub-1').catch((err: unknown) => {
      process.stderr.write(`R2:\n${r2.stderr().slice(-5000)}\n`);
      throw err;
    });
    assert.equal(respawned()?.handle, 'sub-1');
    assert.equal(respawned()?.attempt, 2);
    const state = async () =>
      (await query(url, 'SELECT state FROM tasks WHERE id = $1', [task.id]))[0]?.state as string | undefined;
    await until(async () => (await state()) === 'completed', 30_000, 'the caller completes on R2').catch(
      (err: unknown) => {
        process.stderr.write(`R2:\n${r2.stderr().slice(-5000)}\n`);
        throw err;
      },
    );
    assert.ok(!r2.events.some((e) => e.event === 'subagent.spawn'), 'R2 started no second subagent');
    // The record's end is saved beside the caller's fold: read until it landed (bounded).
    const ended = async () =>
      (await query(url, "SELECT json FROM subagents WHERE handle = 'sub-1'")).some(
        (r) =>
          // Parsed: a record whose subtree spend was added in place is stored as PostgreSQL renders jsonb.
          (JSON.parse(String(r.json)) as { status?: string }).status === 'completed',
      );
    await until(ended, 5_000, "sub-1's end stored");
    const records = await query(url, 'SELECT handle, json FROM subagents ORDER BY handle');
    assert.deepEqual(
      records.map((r) => r.handle),
      ['sub-1'],
      'one subagent',
    );
    const sub = JSON.parse(String(records[0]?.json)) as { status: string; result: unknown; attempt: number };
    assert.equal(sub.status, 'completed');
    assert.equal(sub.result, 'forty-two stars');
    const conversation = (await query(url, 'SELECT conversation FROM tasks WHERE id = $1', [task.id]))[0]?.conversation;
    const transcript = async () =>
      (await query(url, 'SELECT json FROM messages WHERE conversation_id = $1 ORDER BY idx', [conversation])).map((r) =>
        String(r.json),
      );
    // The end's note joins the transcript after the caller's fold.
    const noted = async () => (await transcript()).some((m) => m.includes('subagent sub-1 completed'));
    await until(noted, 10_000, "the result's note").catch((err: unknown) => {
      process.stderr.write(`R2:\n${r2.stderr().slice(-5000)}\n`);
      throw err;
    });
    const said = await transcript();
    const results = said.filter((m) => m.includes('"role":"tool"') && m.includes('forty-two stars'));
    assert.equal(results.length, 1, 'the result reached the caller once');
    assert.match(results[0] ?? '', /"handle":"sub-1"/);
    // Its end's note (agent.wake_on: subagent_result), as on one daemon: once.
    assert.equal(said.filter((m) => m.includes('subagent sub-1 completed')).length, 1, 'one note');
    assert.equal(said.filter((m) => m.includes('the caller is done')).length, 1, 'one reply');
    const rows = await query(url, "SELECT status FROM inbox WHERE kind = 'subagent'");
    assert.deepEqual(
      rows.map((r) => r.status),
      ['done'],
      "sub-1's lease row is done",
    );
    assert.ok(
      r2.events.some((e) => e.event === 'lease.adopted' && e.ctx === 'subagent:sub-1'),
      "R2 adopted sub-1's lease",
    );
  });
});
