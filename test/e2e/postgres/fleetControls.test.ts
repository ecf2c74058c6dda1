// The operator's pause is stored for the fleet, and a drain names the replica it drains (issue 19; interfaces
// reference §4.4), over built daemons and a real PostgreSQL, lease TTL 2 minutes.
// - Pause sent to A, then B starts: B is paused from its start (a message sent to it queues); resume sent to A lets
//   it run. Premise: before, the pause went only by NOTIFY, and a replica started later was not paused.
// - A pause B never hears of (written to the table with no NOTIFY, as when B's listener was down): B applies it at
//   its next look, and the resume likewise. Premise: before, nothing but the NOTIFY told B.
// - Drain sent to A answers with A's name and leaves B serving.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const heard = (d: Daemon, event: string) => d.events.some((e) => e.event === event);

describe('fleet controls', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_controls');
    model = await startScriptedModel({ turns: [{ content: 'done' }] });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  async function heldThenRun(b: Daemon, resume: () => Promise<unknown>): Promise<void> {
    const before = model.requests.length;
    await (await clientFor(b.url)).sendMessage(send('held while paused', {}, true));
    await sleep(1_500);
    assert.equal(model.requests.length, before, 'B ran nothing while paused');
    await resume();
    await waitUntil(() => heard(b, 'turn.reply'), 20_000, 'B runs it once resumed');
  }

  it('a replica started after the pause is paused', { timeout: 120_000 }, async () => {
    const yaml = replicaYaml(model.url, '120s');
    const [a] = (await startReplicas(url, yaml, 1, daemons)) as [Daemon];
    const operatorA = new DaemonClient({ url: a.url });
    await operatorA.command('pause');
    const [b] = (await startReplicas(url, yaml, 1, daemons)) as [Daemon];
    await waitUntil(() => heard(b, 'agent.paused'), 3_000, 'B is paused from its start');
    await heldThenRun(b, () => operatorA.command('resume'));
    for (const d of [a, b]) await d.stop();
    daemons.length = 0;
  });

  it('a pause stored while a replica heard no NOTIFY holds it at its next look', { timeout: 120_000 }, async () => {
    const [b] = (await startReplicas(url, replicaYaml(model.url, '120s'), 1, daemons)) as [Daemon];
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const store = (op: string) =>
      db.query(
        `INSERT INTO fleet_controls (key, value, ts) VALUES ('pause', $1, 0)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [op],
      );
    try {
      await store('pause');
      await waitUntil(() => heard(b, 'agent.paused'), 15_000, 'B applies the stored pause');
      await heldThenRun(b, () => store('resume'));
    } finally {
      await db.end();
    }
    await b.stop();
    daemons.length = 0;
  });

  it('a drain sent to A names A and leaves B serving', { timeout: 120_000 }, async () => {
    const [a, b] = (await startReplicas(url, replicaYaml(model.url, '120s'), 2, daemons)) as [Daemon, Daemon];
    const answer = (await new DaemonClient({ url: a.url }).command('drain')) as {
      draining?: boolean;
      replica?: string;
    };
    assert.equal(answer.draining, true);
    assert.match(answer.replica ?? '', /:\d+:/, `the answer names the replica: ${JSON.stringify(answer)}`);
    await (await clientFor(b.url)).sendMessage(send('still served', {}, true));
    await waitUntil(() => heard(b, 'turn.reply'), 20_000, 'B still runs messages');
    assert.ok(!heard(b, 'drain.start'), 'B is not draining');
  });
});
