// A dead replica's conversation is adopted (issue 19 item 3; interfaces reference §4.4): R1 completes one MCP call
// (echo) and is SIGKILLed inside a long one (slow); within the lease TTL and one sweep R2 holds the lease at a
// higher epoch and runs the turn again from the committed transcript. The completed echo is answered from the tool
// journal (the server sees it once; without the journal the rerun called it again), and the message is answered
// once: one user message and one reply, the inbox row done, the task completed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const TTL_MS = 2_000;

describe('adoption after a SIGKILL', () => {
  let model: ScriptedModel;
  let server: McpTestServer;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('adoption');
    server = await startMcpTestServer();
    model = await startScriptedModel({
      turns: [
        { tool_calls: [{ name: 'echo', arguments: { text: 'first effect' } }] },
        { tool_calls: [{ name: 'slow', arguments: { ms: 60_000 } }], times: 1 },
        { content: 'answered once' },
      ],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await server.close();
    await stopLazyServer();
  });

  it('R2 takes the lease at a higher epoch and answers once', async () => {
    const mcp = ['mcp:', '  servers:', `    test: {url: "${server.url}"}`];
    const yaml = replicaYaml(model.url, '2s', mcp);
    const [r1, r2] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    const task = asTask(await (await clientFor(r1.url)).sendMessage(send('long question', {}, true)));
    const calls = (name: string) => server.calls.filter((c) => c.name === name);
    await waitUntil(() => calls('slow').length === 1, 20_000, "R1's worker is inside the slow call");
    assert.equal(calls('echo').length, 1, 'R1 completed the echo first');
    assert.ok(
      r1.events.some((e) => e.event === 'turn.spawn'),
      'the turn started on R1',
    );
    assert.ok(!r2.events.some((e) => e.event === 'turn.spawn'), 'and not on R2');
    const exited = new Promise((resolve) => r1.child.once('exit', resolve));
    const killedAt = Date.now();
    r1.child.kill('SIGKILL');
    await within(exited, 10_000, 'R1 dies');
    await waitUntil(() => r2.events.some((e) => e.event === 'lease.adopted'), 20_000, 'R2 adopts');
    const adoptedMs = Date.now() - killedAt;
    process.stderr.write(`adoption after SIGKILL: ${adoptedMs} ms (lease_ttl ${TTL_MS} ms)\n`);
    const adopted = r2.events.find((e) => e.event === 'lease.adopted');
    assert.equal(adopted?.epoch, 2, 'a higher epoch than R1 held');
    await waitUntil(() => r2.events.some((e) => e.event === 'turn.reply'), 20_000, 'R2 answers');
    const seen = await within((await clientFor(r2.url)).getTask({ tenant: '', id: task.id }), 5_000, 'GetTask');
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const ctx = (await db.query('SELECT conversation FROM tasks WHERE id = $1', [task.id])).rows[0]?.conversation;
      const said = (await db.query('SELECT json FROM messages WHERE conversation_id = $1 ORDER BY idx', [ctx])).rows
        .map((r) => JSON.parse(r.json) as { role: string; text?: string })
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => `${m.role}:${m.text ?? ''}`);
      assert.deepEqual(
        said.filter((m) => m !== 'assistant:'),
        ['user:long question', 'assistant:answered once'],
      );
      const inbox = (await db.query('SELECT id, status FROM inbox WHERE conversation = $1', [ctx])).rows;
      const inboxId = inbox[0]?.id;
      const journal = (await db.query('SELECT key FROM tool_journal ORDER BY key')).rows.map((r) => r.key);
      assert.deepEqual(journal, [`agentd/${ctx}#${inboxId}.0`], 'the echo, keyed by the message');
      assert.deepEqual(
        inbox.map((r) => r.status),
        ['done'],
      );
      const tasks = (await db.query('SELECT state FROM tasks WHERE context_id = $1', [task.contextId])).rows;
      assert.deepEqual(
        tasks.map((r) => r.state),
        ['completed'],
      );
    } finally {
      await db.end();
    }
    assert.equal(seen.id, task.id);
    assert.equal(calls('echo').length, 1, 'the rerun answered the completed echo from the journal');
    assert.equal(calls('slow').length, 1);
    assert.ok(
      r2.events.some((e) => e.event === 'tool.journal_hit' && e.tool === 'echo'),
      'R2 says so',
    );
  });
});
