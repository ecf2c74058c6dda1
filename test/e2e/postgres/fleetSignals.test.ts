// What replicas tell each other between sweeps (issue 19 item 4; interfaces reference §4.4), over built daemons and a
// real PostgreSQL, with a lease TTL of 2 minutes so the inbox sweep runs only every 40 s:
// - a follow-up accepted on A for a conversation B holds is run by B at once: B hears A's NOTIFY and claims it.
//   Premise: without the NOTIFY, B found it only at its next sweep (40 s after its last claim), past the 20 s wait;
// - CancelTask sent to A for a turn B runs: A stores the request and NOTIFYs, B kills its worker, the task ends
//   CANCELED once. Premise: before the cancel request, A's cancel went to its own supervisor, which runs nothing of
//   that conversation, and B's turn went on to answer (the model answers after 30 s).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { processGone, waitUntil, within } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { query, replicaYaml, startReplicas } from './replicaFleet.js';

const metricsYaml = ['observability:', '  metrics_addr: 127.0.0.1:0'];

async function scrape(d: Daemon): Promise<string> {
  const addr = d.events.find((e) => e.event === 'metrics.listen')?.addr;
  return (await fetch(`http://${String(addr)}/metrics`)).text();
}

/** Reads the task's stored state until it is `want`; throws past `ms`. */
async function untilState(url: string, id: string, want: string, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const rows = await query(url, 'SELECT state FROM tasks WHERE id = $1', [id]);
    if (rows[0]?.state === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
}

const named = (d: Daemon, event: string) => d.events.filter((e) => e.event === event);

describe('replicas wake each other (LISTEN/NOTIFY)', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_signals');
    model = await startScriptedModel({
      match: [
        { when_contains: 'SLOWFIRST', content: 'first answer', delay_ms: 3_000, times: 1 },
        { when_contains: 'HANGZZ', content: 'never stored', delay_ms: 30_000 },
      ],
      turns: [{ content: 'the follow-up answer' }],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('B runs a follow-up accepted on A at once; a cancel sent to A ends B’s turn once', async () => {
    const yaml = replicaYaml(model.url, '120s', metricsYaml);
    const [a, b] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    const first = asTask(await (await clientFor(b.url)).sendMessage(send('SLOWFIRST question', {}, true)));
    await waitUntil(() => model.requests.length === 1, 20_000, "B's worker calls the model");
    const follow = asTask(
      await (await clientFor(a.url)).sendMessage(send('second', { contextId: first.contextId }, true)),
    );
    const state = async (id: string) =>
      (await query(url, 'SELECT state FROM tasks WHERE id = $1', [id]))[0]?.state as string | undefined;
    await untilState(url, follow.id, 'completed', 20_000, 'B answers the follow-up').catch((err: unknown) => {
      process.stderr.write(`A:\n${a.stderr()}\nB:\n${b.stderr()}\n`);
      throw err;
    });
    assert.equal(await state(first.id), 'completed');
    assert.ok(
      named(b, 'lease.notify').some((e) => e.channel === 'inbox'),
      "B heard A's NOTIFY",
    );
    assert.equal(named(a, 'turn.spawn').length, 0, 'A ran nothing: B holds the conversation');
    assert.ok(named(b, 'turn.spawn').length >= 1);
    assert.match(await scrape(b), /agentd_notify_lag_seconds_count\{channel="inbox"\} [1-9]/);

    // A turn B runs, cancelled through A.
    const hung = asTask(await (await clientFor(b.url)).sendMessage(send('HANGZZ question', {}, true)));
    await waitUntil(() => model.requests.some((r) => JSON.stringify(r.body).includes('HANGZZ')), 20_000, 'B calls');
    const spawn = named(b, 'turn.spawn').at(-1);
    const pid = Number(spawn?.worker_pid ?? spawn?.pid);
    const canceled = await within(
      (await clientFor(a.url)).cancelTask({ tenant: '', id: hung.id, metadata: undefined }),
      15_000,
      'cancel',
    );
    assert.equal(canceled.id, hung.id);
    assert.equal(await state(hung.id), 'canceled', 'A answered once the store showed the task CANCELED');
    assert.ok(
      named(b, 'lease.notify').some((e) => e.channel === 'cancel'),
      "B heard A's cancel request",
    );
    if (Number.isFinite(pid) && pid > 0) await waitUntil(() => processGone(pid), 5_000, "B's worker is gone");
    const rows = await query(url, 'SELECT count(*)::int AS n FROM cancel_requests', []);
    assert.equal(rows[0]?.n, 0, 'the request was taken');
    const inbox = await query(
      url,
      'SELECT status FROM inbox WHERE id = (SELECT inbox_event FROM tasks WHERE id = $1)',
      [hung.id],
    );
    assert.deepEqual(
      inbox.map((r) => r.status),
      ['done'],
      'folded once',
    );
    assert.ok(!JSON.stringify(b.events).includes('never stored'), 'the hung call never answered');
  });
});
