// Exhaustion (issue 13): the daemon runs out of file descriptors, or its disk stops taking commits, while it holds
// acknowledged messages; once the resource is back every acknowledged message completes, none is lost or failed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { type Daemon, startDaemon } from './daemon.js';
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

const stateOf = (call: ReturnType<typeof rpcOver>) => async (id: string) =>
  ((await call('GetTask', { id }))['result'] as { status: { state: string } }).status.state;

/** Stops the daemon; one that does not drain in time is killed so no test leaves it behind. */
async function stopOrKill(daemon: Daemon): Promise<number | null> {
  try {
    return await daemon.stop();
  } catch {
    daemon.child.kill('SIGKILL');
    return -1;
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
    // One process per turn and no spare: every message during the flood needs a spawn (a reused worker would not).
    const agent0 = 'agent:\n  warm_workers: 0\n  worker_max_turns: 1\n';
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\n${agent0}intelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml, {}, [], ['prlimit', `--nofile=${NOFILE}:${NOFILE}`, '--']);
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
      const refused = daemon.events.find((e) => e.event === 'child.exit' && e.spawn_error === 'EMFILE');
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
      assert.equal(await stopOrKill(daemon), 0, 'the daemon drains and exits cleanly');
    }
  });
});

/** A tiny tmpfs for the store (root only); null where mounting is not allowed. */
function tinyDisk(): string | null {
  const dir = tempStateDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'ignore', timeout: 5_000 });
    return dir;
  } catch {
    return null;
  }
}

/** Fills the disk under `dir` to the last byte; returns the filler to delete. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC', 'premise: the disk is full');
  } finally {
    closeSync(fd);
  }
  return filler;
}

function readyz(addr: string, body: string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`http://${addr}/readyz`, { timeout: 5_000 }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => body.push(c));
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('/readyz did not answer')));
    req.on('error', reject);
    req.end();
  });
}

describe('exhaustion: disk full', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'done', delay_ms: 1_500 }] });
  });
  after(async () => model.close());

  it('folds that cannot commit retry on their own; /readyz and new sends say so; nothing acknowledged is lost', async (t) => {
    const dir = tinyDisk();
    if (dir === null) return t.skip('mounting a tmpfs needs root');
    // min_free 0: this case is about refused commits; on a 4 MB filesystem the pressure gate would shed first.
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nobservability:\n  metrics_addr: 127.0.0.1:0\nstore:\n  min_free: 0\nintelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = rpcOver(agent, daemon.url);
    let filler: string | null = null;
    try {
      await waitUntil(() => daemon.events.some((e) => e.event === 'proc.ready'), 20_000, 'the daemon is ready');
      const metrics = String(daemon.events.find((e) => e.event === 'metrics.listen')?.addr);
      assert.equal(await readyz(metrics), 200);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const params = {
          message: { messageId: `full-${i}`, contextId: `full-${i}`, parts: [{ text: `before the disk fills ${i}` }] },
          configuration: { returnImmediately: true },
        };
        const task = ((await call('SendMessage', params))['result'] as { task: { id: string } }).task;
        ids.push(task.id);
      }
      filler = fillDisk(dir);
      const turnsDone = () => daemon.events.filter((e) => e.event === 'turn.done' && e.comp === 'supervisor').length;
      await waitUntil(() => turnsDone() === ids.length, 20_000, 'the three turns finish');
      await waitUntil(() => daemon.events.some((e) => e.event === 'store.checkpoint.fail'), 5_000, 'a fold fails');
      const why: string[] = [];
      assert.equal(await readyz(metrics, why), 503, '/readyz is false while commits fail');
      assert.equal(why.join(''), 'not ready store_failing=true\n');
      const more = {
        message: { messageId: 'while-full', parts: [{ text: 'more' }] },
        configuration: { returnImmediately: true },
      };
      const refused = await call('SendMessage', more);
      const error = refused['error'] as { code: number; message: string };
      // Its own code, so a client can tell it from an internal error (-32603).
      assert.equal(error.code, -31503);
      assert.match(error.message, /the store cannot commit right now .* send it again later/);
      const stuck = await Promise.all(ids.map(stateOf(call)));
      assert.deepEqual(
        stuck,
        ids.map(() => 'TASK_STATE_WORKING'),
        'premise: the finished turns are not stored yet',
      );
      rmSync(filler);
      filler = null;
      // Nothing is sent meanwhile (the metrics port never reaches the reactor): the retry timer alone brings the
      // folds in. Before, a refused fold waited for the next unrelated event.
      const deadline = Date.now() + 30_000;
      while ((await readyz(metrics)) !== 200) {
        if (Date.now() > deadline) throw new Error('/readyz did not come back within 30 s');
        await delay(100);
      }
      const states = await Promise.all(
        ids.map(
          async (id) => ((await call('GetTask', { id }))['result'] as { status: { state: string } }).status.state,
        ),
      );
      assert.deepEqual(states, ['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
      // One line per refused fold and per conversation, not one per reactor step (once over a hundred in 8 s).
      const failLines = daemon.events.filter((e) => e.event === 'store.checkpoint.fail').length;
      assert.ok(failLines <= 2 * ids.length, `store.checkpoint.fail lines during the outage: ${failLines}`);
      const again = await call('SendMessage', more);
      assert.ok(again['result'], 'the refused send, retried with its messageId, is accepted now');
    } finally {
      if (filler) rmSync(filler, { force: true });
      agent.destroy();
      const code = await stopOrKill(daemon);
      execFileSync('umount', ['-l', dir], { timeout: 10_000 });
      assert.equal(code, 0, 'the daemon drains and exits cleanly');
    }
  });
});
