// Turn latency on a zero-latency scripted model: accept → outcome, per turn, through real worker processes.
// Prints figures; asserts nothing (speed is measured here, never in tests).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../src/config/compile.js';
import { createLogger } from '../src/obs/log.js';
import { openStore } from '../src/store/openStore.js';
import { Supervisor } from '../src/supervisor/supervisor.js';
import { startScriptedModel } from '../test/doubles/scriptedModel.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 30);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function measure(label: string, playbookTurns: Parameters<typeof startScriptedModel>[0]): Promise<void> {
  const model = await startScriptedModel(playbookTurns);
  const dir = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  const config = compileConfig({
    files: [],
    env: { AGENTD_STATE_DIR: dir },
    flags: { intelligence: model.url },
    cwd: dir,
  });
  const store = openStore(config.store);
  const sup = new Supervisor({ config, store, log: createLogger({ level: 'error' }) });
  sup.restore();
  const times: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    const ev = sup.accept({ context_id: `bench-${i % 4}`, text: `message ${i}`, principal: 'operator' });
    if (!ev) throw new Error('not accepted');
    const outcome = await sup.outcomeOf(ev.id);
    if (outcome.status !== 'completed') throw new Error(`turn ${i}: ${outcome.status} ${outcome.error ?? ''}`);
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpuStart);
  await sup.drain(5_000);
  store.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const fmt = (n: number): string => n.toFixed(1).padStart(7);
  console.log(
    `${label.padEnd(28)} turns=${TURNS} mean=${fmt(mean)} ms p50=${fmt(percentile(sorted, 50))} ms ` +
      `p95=${fmt(percentile(sorted, 95))} ms supervisor-cpu/turn=${fmt((cpu.user + cpu.system) / 1000 / TURNS)} ms`,
  );
}

await measure('answer only', { turns: [{ content: 'ok' }] });
await measure('one internal tool round', {
  turns: [{ tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }] }, { content: 'ok' }],
});
