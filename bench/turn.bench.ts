// Turn latency on a zero-latency scripted model: accept → outcome, per turn, through real worker processes.
// Prints figures; asserts nothing (speed is measured here, never in tests).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../src/config/compile.js';
import { createLogger } from '../src/obs/log.js';
import { openStore } from '../src/store/openStore.js';
import { Supervisor } from '../src/supervisor/supervisor.js';
import { ToolSurface } from '../src/tools/surface.js';
import { type Playbook, startScriptedModel } from '../test/doubles/scriptedModel.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 30);

interface Scenario {
  label: string;
  playbook: Playbook;
  warm: number;
  /** Idle time between messages (not measured), as a daemon has between requests. */
  gapMs: number;
  /** A Streamable-HTTP MCP server the turns may call (`--mcp test=URL`). */
  mcp?: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure({ label, playbook, warm, gapMs, mcp }: Scenario): Promise<void> {
  const model = await startScriptedModel(playbook);
  const dir = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  const env = { AGENTD_STATE_DIR: dir, AGENTD_OBSERVABILITY_LOG_LEVEL: 'error' };
  const flags = { intelligence: model.url, ...(mcp ? { mcp: [`test=${mcp}`] } : {}) };
  const config = compileConfig({ files: [], env, flags, cwd: dir });
  const log = createLogger({ level: 'error' });
  const tools = await ToolSurface.start({ config, log, baseEnv: process.env });
  const store = openStore(config.store);
  const sup = new Supervisor({ config, store, log, tools, warmWorkers: warm });
  await sup.restore();
  await pause(gapMs);
  const times: number[] = [];
  let cpu = 0;
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const { record: ev } = await sup.accept({
      context_id: `bench-${i % 4}`,
      text: `message ${i}`,
      principal: 'operator',
    });
    const outcome = await sup.outcomeOf(ev.id);
    if (outcome.status !== 'completed') throw new Error(`turn ${i}: ${outcome.status} ${outcome.error ?? ''}`);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    await pause(gapMs);
  }
  await sup.drain(5_000);
  await store.close();
  await tools.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const fmt = (n: number): string => n.toFixed(1).padStart(7);
  console.log(
    `${label.padEnd(44)} turns=${TURNS} mean=${fmt(mean)} ms p50=${fmt(percentile(sorted, 50))} ms ` +
      `p95=${fmt(percentile(sorted, 95))} ms supervisor-cpu/turn=${fmt(cpu / TURNS)} ms`,
  );
}

const answer: Playbook = { turns: [{ content: 'ok' }] };
const toolRound: Playbook = {
  turns: [{ tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }] }, { content: 'ok' }],
};
await measure({ label: 'cold spawn, answer only', playbook: answer, warm: 0, gapMs: 0 });
await measure({ label: 'warm pool, answer only, back to back', playbook: answer, warm: 1, gapMs: 0 });
await measure({ label: 'warm pool, answer only, 300 ms apart', playbook: answer, warm: 1, gapMs: 300 });
await measure({ label: 'warm pool, one tool round, 300 ms apart', playbook: toolRound, warm: 1, gapMs: 300 });

// One MCP tool round (Streamable HTTP test server): the worker connects and calls; spares preload the MCP client.
const { startMcpTestServer } = await import('../test/doubles/mcpTestServer.js');
const mcp = await startMcpTestServer();
const mcpRound: Playbook = {
  turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { content: 'ok' }],
};
await measure({
  label: 'warm pool, one MCP round, 300 ms apart',
  playbook: mcpRound,
  warm: 1,
  gapMs: 300,
  mcp: mcp.url,
});
await measure({ label: 'cold spawn, one MCP round', playbook: mcpRound, warm: 0, gapMs: 0, mcp: mcp.url });
await mcp.close();
