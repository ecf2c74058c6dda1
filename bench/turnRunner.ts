// The agentd side of the turn bench, in its own process so the driver can measure its whole process tree (this
// supervisor, its workers, their children) apart from the scripted model. Driven over IPC by turn.bench.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../src/config/compile.js';
import { createLogger } from '../src/obs/log.js';
import { openStore } from '../src/store/openStore.js';
import { Supervisor } from '../src/supervisor/supervisor.js';
import { defaultWorkerEntry } from '../src/supervisor/workerHandle.js';
import { ToolSurface } from '../src/tools/surface.js';

/** What the driver asks for: `turns` turns, `slots` at a time, each in a fresh conversation. */
export interface RunRequest {
  turns: number;
  slots: number;
  prefix: string;
}

export interface RunReply {
  times: number[];
  wallMs: number;
}

const dir = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
const env: Record<string, string> = { AGENTD_STATE_DIR: dir, AGENTD_OBSERVABILITY_LOG_LEVEL: 'error' };
for (const [k, v] of Object.entries(process.env)) if (k.startsWith('AGENTD_AGENT_') && v) env[k] = v;
const mcp = process.env.BENCH_MCP;
const flags = { intelligence: process.env.BENCH_MODEL as string, ...(mcp ? { mcp: [`test=${mcp}`] } : {}) };
const config = compileConfig({ files: [], env, flags, cwd: dir });
const log = createLogger({ level: 'error' });
const tools = await ToolSurface.start({ config, log, baseEnv: process.env });
const store = openStore(config.store);
// BENCH_NODE_ARGS: node flags for the workers too (`--cpu-prof --cpu-prof-dir=…`; NODE_OPTIONS refuses --cpu-prof).
const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const entry = defaultWorkerEntry();
const workerEntry = { ...entry, args: [...nodeArgs, ...entry.args] };
const sup = new Supervisor({ config, store, log, tools, workerEntry });
await sup.restore();

async function one(ctx: string, times: number[]): Promise<void> {
  const t0 = performance.now();
  const { record } = await sup.accept({ context_id: ctx, text: 'message', principal: 'operator' });
  const outcome = await sup.outcomeOf(record.id);
  if (outcome.status !== 'completed') throw new Error(`${ctx}: ${outcome.status} ${outcome.error ?? ''}`);
  times.push(performance.now() - t0);
}

async function run({ turns, slots, prefix }: RunRequest): Promise<RunReply> {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    for (let i = next++; i < turns; i = next++) await one(`${prefix}-${i}`, times);
  };
  await Promise.all(Array.from({ length: slots }, lane));
  return { times, wallMs: performance.now() - t0 };
}

process.on('message', (msg: RunRequest | 'close') => {
  if (msg === 'close') {
    void (async () => {
      await sup.drain(5_000);
      await store.close();
      await tools.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    })();
    return;
  }
  run(msg).then(
    (reply) => process.send?.(reply),
    (err: unknown) => {
      console.error(`turn bench runner: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
});
process.send?.('ready');
