// A dead replica's conversation is adopted (issue 19 item 3; interfaces reference §4.4): R1 is SIGKILLed inside a
// slow model call; within the lease TTL and one sweep R2 holds the lease at a higher epoch, runs the turn again
// from the committed transcript and answers it once: the conversation holds one user message and one reply, the
// inbox row is done, the task completed. Premise: the message was accepted and its turn started on R1 only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const TTL_MS = 2_000;

describe('adoption after a SIGKILL', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('adoption');
    model = await startScriptedModel({
      turns: [{ content: 'never stored', delay_ms: 30_000, times: 1 }, { content: 'answered once' }],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('R2 takes the lease at a higher epoch and answers once', async () => {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '2s'), 2, daemons)) as [Daemon, Daemon];
    const task = asTask(await (await clientFor(r1.url)).sendMessage(send('long question', {}, true)));
    await waitUntil(() => model.requests.length === 1, 20_000, "R1's worker calls the model");
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
      assert.deepEqual(said, ['user:long question', 'assistant:answered once']);
      const inbox = (await db.query('SELECT status FROM inbox WHERE conversation = $1', [ctx])).rows;
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
    assert.equal(model.requests.length, 2, 'one call on R1, one rerun on R2');
  });
});
