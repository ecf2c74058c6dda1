// SqliteStore across real processes: one writer per store directory (a second process fails fast with
// store_locked), and an accepted inbox event survives its process being SIGKILLed straight after.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DaemonError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { inboxEvent } from './storeFixtures.js';

const here = fileURLToPath(import.meta.url);
const ext = path.extname(here);
const repoRoot = path.resolve(path.dirname(here), ext === '.ts' ? '../../..' : '../../../..');
const childScript = path.join(path.dirname(here), `storeChild${ext}`);
const WAIT_MS = 15_000;

const root = mkdtempSync(path.join(os.tmpdir(), 'agentd-sqlite-proc-'));
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  /** The next JSON line the child prints, or a rejection after WAIT_MS. */
  nextReport(): Promise<Record<string, unknown>>;
  /** How the child ended, or a rejection after WAIT_MS. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startChild(...args: string[]): Child {
  // Under tsx the child runs the .ts source through tsx too; compiled tests run the compiled .js.
  const nodeArgs = ext === '.ts' ? ['--import', 'tsx', childScript, ...args] : [childScript, ...args];
  const proc = spawn(process.execPath, nodeArgs, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(proc);
  const queue: Array<Record<string, unknown>> = [];
  const waiters: Array<(value: Record<string, unknown>) => void> = [];
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else queue.push(value);
  });
  const exited = withTimeout(
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.on('exit', (code, signal) => resolve({ code, signal })),
    ),
    'child exit',
  );
  exited.catch(() => {});
  const nextReport = (): Promise<Record<string, unknown>> => {
    const ready = queue.shift();
    if (ready) return Promise.resolve(ready);
    return withTimeout(new Promise((resolve) => waiters.push(resolve)), 'child report');
  };
  return { proc, nextReport, exited };
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('SqliteStore single writer across processes', { timeout: 60_000 }, () => {
  it('fails fast with store_locked naming the dir and the holder pid, then opens once the holder closes', async () => {
    const dir = path.join(root, 'held-by-child');
    const holder = startChild('hold', dir);
    const held = await holder.nextReport();
    assert.deepEqual(held, { ok: true, pid: holder.proc.pid, generation: 1 });

    const started = Date.now();
    assert.throws(
      () => new SqliteStore(dir),
      (err: unknown) =>
        err instanceof DaemonError &&
        err.code === 'store_locked' &&
        err.message === `store ${dir} is held by another process (pid ${holder.proc.pid})`,
    );
    assert.ok(Date.now() - started < 1000, 'the second opener does not wait for the lock');

    holder.proc.stdin?.write('close\n');
    assert.deepEqual(await holder.nextReport(), { closed: true });
    const store = new SqliteStore(dir);
    assert.equal(store.generation, 2);
    store.close();
    holder.proc.stdin?.end();
    assert.equal((await holder.exited).code, 0);
  });

  it('refuses a child while this process holds the store, and admits it after close', async () => {
    const dir = path.join(root, 'held-by-parent');
    const store = new SqliteStore(dir);
    const refused = startChild('open', dir);
    assert.deepEqual(await refused.nextReport(), {
      ok: false,
      code: 'store_locked',
      message: `store ${dir} is held by another process (pid ${process.pid})`,
    });
    assert.equal((await refused.exited).code, 0);
    store.close();

    const admitted = startChild('open', dir);
    assert.deepEqual(await admitted.nextReport(), { ok: true, generation: 2 });
    assert.equal((await admitted.exited).code, 0);
  });
});

describe('SqliteStore durability', { timeout: 60_000 }, () => {
  it('keeps an event accepted just before SIGKILL, pending, with its id, principal and payload', async () => {
    const dir = path.join(root, 'killed');
    const event = inboxEvent({ principal: 'carol', payload: { context_id: 'k', text: 'survive', msg_depth: 1 } });
    const child = startChild('accept-kill', dir, JSON.stringify(event));
    const ended = await child.exited;
    assert.equal(ended.signal, 'SIGKILL', 'the child died by SIGKILL after accepting');

    const store = new SqliteStore(dir);
    assert.deepEqual(await store.inbox.claim('test', 60_000, 0), [event]);
    assert.equal(store.generation, 2);
    store.close();
  });
});
