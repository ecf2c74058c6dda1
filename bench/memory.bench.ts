// Supervisor memory with many conversations: RSS after 5,000 conversations were written through the supervisor,
// and RSS after a restart on the same store (a fresh process). Each phase runs in its own child process so its
// figure is its own. Prints figures; asserts nothing (memory is measured here, never in tests).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileConfig } from '../src/config/compile.js';
import { createLogger } from '../src/obs/log.js';
import { openStore } from '../src/store/openStore.js';
import { Supervisor } from '../src/supervisor/supervisor.js';
import { ToolSurface } from '../src/tools/surface.js';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 5_000);
/** Each conversation holds one note of this many bytes (about 100 MB over 5,000 conversations). */
const NOTE_BYTES = Number(process.env.BENCH_NOTE_BYTES ?? 20_000);

const mb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(0).padStart(5)} MB`;

/** RSS and the JS heap in use, after a full collection (the heap is what the supervisor itself holds). */
function rss(): string {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return `${mb(rss)} heap=${mb(heapUsed)}`;
}

async function openSupervisor(dir: string) {
  const env = { AGENTD_STATE_DIR: dir, AGENTD_OBSERVABILITY_LOG_LEVEL: 'error' };
  const config = compileConfig({ files: [], env, flags: { intelligence: 'http://127.0.0.1:9/v1' }, cwd: dir });
  const log = createLogger({ level: 'error' });
  const tools = await ToolSurface.start({ config, log, baseEnv: process.env });
  const store = openStore(config.store);
  const sup = new Supervisor({ config, store, log, tools, warmWorkers: 0 });
  await sup.restore();
  const close = async (): Promise<void> => {
    await sup.drain(5_000);
    await store.close();
    await tools.close();
  };
  return { sup, close };
}

/** Phase 1: writes the conversations through the supervisor (a durable note each), as a long uptime would. */
async function fill(dir: string): Promise<void> {
  const { sup, close } = await openSupervisor(dir);
  const before = rss();
  const body = 'x'.repeat(NOTE_BYTES);
  for (let i = 0; i < CONVERSATIONS; i++) {
    sup.steering.note(`bench-${i}`, `${i} ${body}`, 'operator');
    // Every few hundred, let the writes settle (as a daemon between requests does).
    if (i % 250 === 249) await new Promise((r) => setTimeout(r, 1));
  }
  await sup.whenIdle();
  await new Promise((r) => setTimeout(r, 50));
  console.log(`${'empty supervisor'.padEnd(44)} rss=${before}`);
  console.log(`${`after ${CONVERSATIONS} conversations`.padEnd(44)} rss=${rss()}`);
  await close();
}

/** Phase 2: a restart on the same store. */
async function restart(dir: string): Promise<void> {
  const started = performance.now();
  const { sup, close } = await openSupervisor(dir);
  const ms = (performance.now() - started).toFixed(0);
  const resident = `conversations=${sup.status().conversations}`;
  console.log(`${'after a restart'.padEnd(44)} rss=${rss()} restore=${ms} ms ${resident}`);
  await close();
}

const [phase, dir] = process.argv.slice(2);
if (phase === 'fill' && dir) await fill(dir);
else if (phase === 'restart' && dir) await restart(dir);
else {
  const state = mkdtempSync(join(tmpdir(), 'agentd-bench-mem-'));
  const self = fileURLToPath(import.meta.url);
  console.log(`memory: ${CONVERSATIONS} conversations, one ${NOTE_BYTES}-byte note each`);
  for (const step of ['fill', 'restart']) {
    const run = spawnSync(process.execPath, ['--expose-gc', self, step, state], { stdio: 'inherit' });
    if (run.status !== 0) console.log(`memory bench: phase ${step} exited ${run.status}`);
  }
  rmSync(state, { recursive: true, force: true });
}
