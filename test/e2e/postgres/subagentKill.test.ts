// A cancel reaches a subagent on another replica (issue 19; interfaces reference §4.4): a turn on R1 starts an
// async subagent whose model call hangs; a turn of the same principal on R2 calls subagent.kill on it. R2 stores a
// cancel request and NOTIFYs; R1, which runs it, cancels it (its worker killed, its record `cancelled`, its lease
// row done). Premise: before, R2 did not know sub-1 and answered `subagent "sub-1" is not running`, and sub-1 ran on.
// A caller's end (a sync child's caller cancelled) and `subagent.kill` share the cancel, so this covers both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { query, replicaYaml, startReplicas } from './replicaFleet.js';

const SUB = 'You are a subagent of';

describe('a subagent cancelled from another replica', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('subagent_kill');
    model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [
        { when_contains: SUB, delay_ms: 60_000, content: 'never stored' },
        {
          when_contains: 'begin the tally',
          times: 1,
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'count the stars', mode: 'async' } }],
        },
        {
          when_contains: 'halt the tally',
          times: 1,
          tool_calls: [{ name: 'subagent.kill', arguments: { handle: 'sub-1', reason: 'no longer needed' } }],
        },
      ],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('R2 asks, R1 cancels the subagent it runs', async () => {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '2s'), 2, daemons)) as [Daemon, Daemon];
    await (await clientFor(r1.url)).sendMessage(send('begin the tally', {}, true));
    await waitUntil(
      () => model.requests.some((r) => JSON.stringify(r.body).includes(SUB)),
      20_000,
      "sub-1's model call on R1",
    ).catch((err: unknown) => {
      process.stderr.write(`R1:\n${r1.stderr().slice(-4000)}\n`);
      throw err;
    });
    const task = asTask(await (await clientFor(r2.url)).sendMessage(send('halt the tally', {}, true)));
    const killed = () => r1.events.find((e) => e.event === 'subagent.kill' && e.handle === 'sub-1');
    await waitUntil(() => killed() !== undefined, 20_000, 'R1 cancels sub-1').catch((err: unknown) => {
      process.stderr.write(`R1:\n${r1.stderr().slice(-4000)}\nR2:\n${r2.stderr().slice(-4000)}\n`);
      throw err;
    });
    assert.equal(killed()?.reason, 'no longer needed');
    assert.ok(!r2.events.some((e) => String(e.event).startsWith('subagent.spawn')), 'R2 ran no subagent');
    await waitUntil(
      () => r1.events.some((e) => e.event === 'subagent.result' && e.status === 'cancelled'),
      10_000,
      "sub-1's end on R1",
    );
    // The record is saved after the event is logged: read until the save landed (bounded).
    const stored = async () =>
      JSON.parse(String((await query(url, "SELECT json FROM subagents WHERE handle = 'sub-1'"))[0]?.json));
    for (let i = 0; i < 50 && (await stored()).status !== 'cancelled'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const record = await stored();
    assert.equal(record.status, 'cancelled');
    assert.equal(record.error, 'no longer needed');
    const ctx = (await query(url, 'SELECT conversation FROM tasks WHERE id = $1', [task.id]))[0]?.conversation;
    const said = (await query(url, 'SELECT json FROM messages WHERE conversation_id = $1', [ctx])).map((r) =>
      String(r.json),
    );
    assert.ok(
      said.some((m) => m.includes('"role":"tool"') && m.includes('"ok":true')),
      'the kill answered ok on R2',
    );
    const rows = async () =>
      (await query(url, "SELECT status FROM inbox WHERE kind = 'subagent'")).map((r) => r.status);
    for (let i = 0; i < 50 && (await rows())[0] !== 'done'; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await rows(), ['done'], "sub-1's lease row is done");
    assert.ok(r2.events.some((e) => e.event === 'lease.cancel_requested' && e.handle === 'sub-1'));
  });
});
