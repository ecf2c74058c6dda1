// A fleet budget window (issue 19: "A fleet budget window shared by both replicas is never exceeded by concurrent
// turns on both"), over built daemons and a real PostgreSQL. The instance window holds 8,000 tokens a day with
// `on_exhausted: refuse`; a turn is estimated above 4,096 tokens (the answer's allowance alone), so the window
// admits one turn at a time, and each turn spends 4,200. Three messages go to each replica at once.
// Premise: before, each replica admitted on its own view of the window (the counters it read at start plus its own
// charges), so each ran one turn and the two together spent 8,400 tokens of the 8,000.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import pg from 'pg';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const CAP = 8_000;
const SPENT = 4_200;
const ENDED = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_CANCELED,
]);

describe('a fleet budget window', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_budget');
    model = await startScriptedModel({
      turns: [{ content: 'spent', delay_ms: 1_500, usage: { prompt_tokens: SPENT - 500, completion_tokens: 500 } }],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('is never exceeded by concurrent turns on both replicas', { timeout: 120_000 }, async () => {
    const budget = ['  budget:', `    windows: [{per: day, tokens: ${CAP}}]`, '    on_exhausted: refuse'];
    const [a, b] = (await startReplicas(url, replicaYaml(model.url, '30s', budget), 2, daemons)) as [Daemon, Daemon];
    const clients = [await clientFor(a.url), await clientFor(b.url)];
    const sends = [0, 1, 2].flatMap((i) => clients.map((c, r) => c.sendMessage(send(`spend ${r}.${i}`, {}, true))));
    const ids = (await Promise.all(sends)).map((t) => asTask(t).id);
    const states = async () =>
      Promise.all(ids.map(async (id) => (await clients[0]?.getTask({ tenant: '', id }))?.status?.state));
    const ended = async () => (await states()).every((s) => s !== undefined && ENDED.has(s));
    for (let i = 0; i < 300 && !(await ended()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(await ended(), `every task ended: ${JSON.stringify(await states())}`);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query(
      `SELECT tokens FROM budget_counters WHERE scope = 'instance' AND "window" <> 'lifetime'`,
    );
    await db.end();
    const counted = Number(rows[0]?.tokens ?? 0);
    assert.ok(counted <= CAP, `the window counted ${counted} tokens of its ${CAP}`);
    assert.ok(model.requests.length * SPENT <= CAP, `${model.requests.length} model calls of ${SPENT} tokens each`);
    assert.ok(model.requests.length >= 1, 'a turn ran');
    const completed = (await states()).filter((s) => s === TaskState.TASK_STATE_COMPLETED).length;
    assert.equal(completed, model.requests.length, 'each model call answered one task');
    for (const d of [a, b])
      assert.ok(
        d.events.some((e) => e.event === 'budget.refused'),
        'both replicas refused',
      );
  });
});
