// Two replicas of the built agentd over one real PostgreSQL (issue 19; interfaces reference §5 case 17, in part): a
// message sent to R1 is answered, GetTask on R2 returns the same completed task, a follow-up on R2 (same contextId)
// runs on the whole transcript, which holds both exchanges in order, and the lease is given back once nothing is
// pending. Without the book reading a conversation another replica wrote, R2 ran the follow-up on an empty
// transcript and its commit was refused (expected revision 0, stored 3), so the follow-up never answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { within } from '../../integration/wait.js';
import { artifactText, asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

describe('two replicas over one PostgreSQL', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('replicas');
    model = await startScriptedModel({ turns: [{ content: 'reply from the fleet' }] });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('answers on R1, serves the task and a follow-up from R2, one lease given back after the fold', async () => {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '3s'), 2, daemons)) as [Daemon, Daemon];
    const first = asTask(
      await within((await clientFor(r1.url)).sendMessage(send('first question')), 30_000, 'send to R1'),
    );
    assert.equal(artifactText(first), 'reply from the fleet');
    const seen = await (await clientFor(r2.url)).getTask({ tenant: '', id: first.id });
    assert.equal(seen.id, first.id);
    assert.equal(artifactText(seen), 'reply from the fleet');
    const follow = await within(
      (await clientFor(r2.url)).sendMessage(send('second question', { contextId: first.contextId })),
      30_000,
      'a follow-up on R2',
    ).catch((err: unknown) => {
      process.stderr.write(`R1:\n${r1.stderr()}\nR2:\n${r2.stderr()}\n`);
      throw err;
    });
    assert.equal(asTask(follow).contextId, first.contextId);
    assert.equal(artifactText(asTask(follow)), 'reply from the fleet');
    const lastAsk = JSON.stringify(model.requests.at(-1)?.body ?? '');
    assert.match(lastAsk, /first question[\s\S]*second question/, 'R2 sent the model the whole transcript');
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT m.json FROM messages m JOIN tasks t ON t.conversation = m.conversation_id
         WHERE t.id = $1 ORDER BY m.idx`,
        [first.id],
      );
      const said = rows
        .map((r) => JSON.parse(r.json) as { role: string; text?: string })
        .filter((m) => m.role === 'user' || (m.role === 'assistant' && m.text))
        .map((m) => `${m.role}:${m.text}`);
      assert.deepEqual(said, [
        'user:first question',
        'assistant:reply from the fleet',
        'user:second question',
        'assistant:reply from the fleet',
      ]);
      const leases = await db.query('SELECT holder, epoch FROM conversation_leases');
      assert.equal(leases.rows.length, 1, 'one lease row for the one conversation');
      assert.equal(leases.rows[0].holder, null, 'given back by the fold: nothing is pending');
    } finally {
      await db.end();
    }
  });
});
