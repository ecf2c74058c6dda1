// A child process for the store's cross-process tests. Modes (argv): `hold DIR` opens and holds the store
// until stdin says "close"; `open DIR` tries once and reports; `accept-kill DIR EVENT_JSON` accepts, then SIGKILLs itself.
import { createInterface } from 'node:readline';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import { DaemonError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';

function report(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function tryOpen(dir: string): SqliteStore | null {
  try {
    return new SqliteStore(dir);
  } catch (err) {
    if (!(err instanceof DaemonError)) throw err;
    report({ ok: false, code: err.code, message: err.message });
    return null;
  }
}

function hold(dir: string): void {
  const store = tryOpen(dir);
  if (store === null) return;
  report({ ok: true, pid: process.pid, generation: store.generation });
  const lines = createInterface({ input: process.stdin });
  const release = (): void => {
    void store.close();
    report({ closed: true });
    lines.close();
  };
  lines.on('line', (line) => line.trim() === 'close' && release());
  lines.on('close', () => void store.close());
}

const [mode, dir, arg] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: storeChild MODE DIR [ARG]');
if (mode === 'hold') hold(dir);
else if (mode === 'open') {
  const store = tryOpen(dir);
  if (store !== null) report({ ok: true, generation: store.generation });
  await store?.close();
} else if (mode === 'accept-kill') {
  const store = tryOpen(dir);
  const accepted = await store?.inbox.accept(JSON.parse(arg ?? '{}') as InboxEvent);
  // No close, no flush, no exit handlers: the event must already be on disk.
  if (accepted?.created === true) process.kill(process.pid, 'SIGKILL');
  report({ ok: false, accepted: accepted?.created });
} else {
  throw new Error(`unknown mode ${mode}`);
}
