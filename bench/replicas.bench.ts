// Replicas over one PostgreSQL (issue 19): throughput with 1, 2 and 3 built daemons (a zero-latency and a 200 ms
// model), the store's commit latency (p50/p99 of the accept and the fold) against SQLite, and the adoption time
// after a SIGKILL. Figures printed, nothing asserted. Uses the test doubles: an embedded PostgreSQL (run with
// fsync off, so its commit figures are not a durable server's), the scripted model. Run after `npm run build`:
// `node dist/bench/replicas.bench.js` (BENCH_REPLICA_MESSAGES, BENCH_REPLICA_COMMITS).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgresStore.js';
import { SqliteStore } from '../src/store/sqliteStore.js';
import type { Store } from '../src/store/store.js';
import { createTestDatabase, stopLazyServer } from '../test/doubles/postgresServer.js';
import { startScriptedModel } from '../test/doubles/scriptedModel.js';
import { type Daemon, send } from '../test/e2e/daemon.js';
import { replicaYaml, startReplicas } from '../test/e2e/postgres/replicaFleet.js';
import { clientFor } from '../test/integration/a2a/listenerHarness.js';
import { waitUntil } from '../test/integration/wait.js';
import { conversation, inboxEvent, userMsg } from '../test/unit/store/storeFixtures.js';

const MESSAGES = Number(process.env.BENCH_REPLICA_MESSAGES ?? 60);
const COMMITS = Number(process.env.BENCH_REPLICA_COMMITS ?? 300);

const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** p50/p99 (ms) of `inbox.accept` and of the fold (`inbox.complete` with a conversation write). */
async function commitLatency(name: string, store: Store): Promise<void> {
  const accept: number[] = [];
  const fold: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const ctx = `bench-${i}`;
    const event = inboxEvent({ ts: i, payload: { context_id: ctx, text: 'x' } });
    let t = performance.now();
    await store.inbox.accept(event);
    accept.push(performance.now() - t);
    await store.inbox.claim('bench', 60_000, Date.now());
    const conv = conversation({ id: ctx, messages: [userMsg('x')] });
    t = performance.now();
    await store.inbox.complete(event.id, {
      outcome: { status: 'completed', reply: 'ok' },
      conversations: [{ conversation: conv, expectedRevision: 0 }],
    });
    fold.push(performance.now() - t);
  }
  const f = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`;
  console.log(`${name.padEnd(10)} accept ${f(accept)}; fold ${f(fold)}`);
}

/** Messages per second through `count` replicas, each message its own conversation, 10 in flight. */
async function throughput(count: number, delayMs: number): Promise<void> {
  const url = await createTestDatabase(`bench_${count}_${delayMs}`);
  const model = await startScriptedModel({ turns: [{ content: 'ok', ...(delayMs ? { delay_ms: delayMs } : {}) }] });
  const daemons: Daemon[] = [];
  try {
    const fleet = await startReplicas(url, replicaYaml(model.url, '15s'), count, daemons);
    const clients = await Promise.all(fleet.map((d) => clientFor(d.url)));
    let next = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < MESSAGES) {
        const i = next++;
        await clients[i % clients.length]?.sendMessage(send(`m${i}`));
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    const seconds = (performance.now() - started) / 1000;
    console.log(`${count} replica(s), model ${delayMs} ms: ${(MESSAGES / seconds).toFixed(1)} messages/s`);
  } finally {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
  }
}

/** Time from R1's SIGKILL (inside a slow model call) to R2's `lease.adopted`, with lease_ttl 2s. */
async function adoption(): Promise<void> {
  const url = await createTestDatabase('bench_adoption');
  const model = await startScriptedModel({
    turns: [{ content: 'slow', delay_ms: 30_000, times: 1 }, { content: 'ok' }],
  });
  const daemons: Daemon[] = [];
  try {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '2s'), 2, daemons)) as [Daemon, Daemon];
    await (await clientFor(r1.url)).sendMessage(send('adopt me', {}, true));
    await waitUntil(() => model.requests.length === 1, 20_000, 'the model call on R1');
    const killed = performance.now();
    r1.child.kill('SIGKILL');
    await waitUntil(() => r2.events.some((e) => e.event === 'lease.adopted'), 30_000, 'adoption');
    console.log(`adoption after SIGKILL (lease_ttl 2 s): ${Math.round(performance.now() - killed)} ms`);
  } finally {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-replica-bench-'));
  const sqlite = new SqliteStore(dir);
  await commitLatency('sqlite', sqlite);
  await sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  const pg = await PostgresStore.open({ url: await createTestDatabase('bench_commits'), poolSize: 4 });
  await commitLatency('postgres', pg);
  await pg.close();
  for (const delay of [0, 200]) for (const n of [1, 2, 3]) await throughput(n, delay);
  await adoption();
  await stopLazyServer();
}

void main();
