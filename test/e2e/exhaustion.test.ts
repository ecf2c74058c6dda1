// Exhaustion (issue 13): the daemon runs out of file descriptors, or its disk stops taking commits, while it holds
// acknowledged messages; once the resource is back every acknowledged message completes, none is lost or failed.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

/** The daemon's descriptor limit: low enough to exhaust with idle connections in a moment. */
const NOFILE = 128;

/** JSON-RPC over one kept-alive connection: it was accepted before the flood, so it still works during it. */
function rpcOver(agent: Agent, url: string) {
  let id = 0;
  return (method: string, params: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
      const headers = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
      const req = request(url, { method: 'POST', agent, headers, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.on('timeout', () => req.destroy(new Error(`${method} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
}

/** Polls `states` until none is working any more (or fails after `timeoutMs`). */
async function settledStates(states: () => Promise<string[]>, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await states();
    if (now.every((s) => s !== 'TASK_STATE_WORKING' && s !== 'TASK_STATE_SUBMITTED')) return now;
    if (Date.now() > deadline) throw new Error(`tasks still working after ${timeoutMs} ms: ${now.join(', ')}`);
    await delay(100);
  }
}

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** Opens idle connections (they never send a byte) until the daemon has no descriptor left. */
async function flood(url: string, pid: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  for (let round = 0; round < 40 && openFds(pid) < NOFILE - 1; round++) {
    for (let i = 0; i < 16; i++) {
      const s = connect(Number(port), hostname);
      s.on('error', () => {});
      sockets.push(s);
    }
    await delay(50);
  }
  assert.ok(openFds(pid) >= NOFILE - 2, `premise: the daemon's descriptors are exhausted (${openFds(pid)} open)`);
  return sockets;
}

describe('exhaustion', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'done' }] });
  });
  after(async () => model.close());

  it('fd exhaustion: spawns fail with EMFILE and retry; every acknowledged message completes', async () => {
    const dir = tempStateDir();
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nagent:\n  warm_workers: 0\nintelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml, {}, ['prlimit', `--nofile=${NOFILE}:${NOFILE}`, '--']);
    const pid = daemon.child.pid ?? 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = rpcOver(agent, daemon.url);
    let sockets: Socket[] = [];
    try {
      const warm = await call('SendMessage', { message: { messageId: 'warm', parts: [{ text: 'warm up' }] } });
      assert.equal(
        (warm['result'] as { task: { status: { state: string } } }).task.status.state,
        'TASK_STATE_COMPLETED',
      );
      sockets = await flood(daemon.url, pid);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const params = {
          message: { messageId: `fd-${i}`, contextId: `fd-ctx-${i}`, parts: [{ text: `during the flood ${i}` }] },
          configuration: { returnImmediately: true },
        };
        const reply = await call('SendMessage', params);
        const task = (reply['result'] as { task?: { id: string } } | undefined)?.task;
        assert.ok(task, `message ${i} acknowledged: ${JSON.stringify(reply)}`);
        ids.push(task.id);
      }
      // Every message was refused a worker, and one was refused again after its backoff: the retries go on.
      const retries = () => daemon.events.filter((e) => e.event === 'turn.spawn_retry');
      await waitUntil(
        () => new Set(retries().map((e) => e.inbox_event)).size === 3 && retries().some((e) => Number(e.attempt) >= 2),
        20_000,
        'spawns fail for want of descriptors and are retried',
      );
      const retry = daemon.events.find((e) => e.event === 'turn.spawn_retry');
      assert.equal(retry?.code, 'EMFILE');
      assert.equal(typeof retry?.delay_ms, 'number');
      assert.equal(typeof retry?.attempt, 'number');
      const refused = daemon.events.find((e) => e.event === 'child.exit' && e.spawnError === 'EMFILE');
      assert.equal(refused?.code, -24, 'premise: the worker "exited" with -EMFILE (what used to fold FAILED)');
      for (const s of sockets) s.destroy();
      await waitUntil(() => openFds(pid) < NOFILE / 2, 10_000, 'the flood is released');
      const states = async () =>
        Promise.all(
          ids.map(async (id) => {
            const got = await call('GetTask', { id });
            return (got['result'] as { status: { state: string } }).status.state;
          }),
        );
      const last = await settledStates(states, 30_000);
      assert.deepEqual(
        last,
        ids.map(() => 'TASK_STATE_COMPLETED'),
        'none failed for a transient cause',
      );
      assert.equal(daemon.events.filter((e) => e.event === 'turn.failed').length, 0);
    } finally {
      for (const s of sockets) s.destroy();
      agent.destroy();
      assert.equal(await daemon.stop(), 0);
    }
  });
});
