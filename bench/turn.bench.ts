// Turn cost through real worker processes (issue 14 item 6): latency per turn on a zero-latency scripted model,
// CPU per turn of every agentd process (supervisor, workers, their children, reaped ones included), peak and idle
// RSS of the tree, and throughput against the ideal with a 200 ms model. Each scenario runs once with the default
// worker reuse and once with `agent.worker_max_turns: 1`. Prints figures; asserts nothing.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Playbook, startScriptedModel } from '../test/doubles/scriptedModel.js';
import { memoryOfTree, sampleTree } from './processTree.js';
import type { RunReply, RunRequest } from './turnRunner.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const WARM = 10;
const MODEL_MS = 200;

interface Scenario {
  label: string;
  playbook: Playbook;
  slots: number;
  turns: number;
  /** Model calls per turn, for the ideal throughput. */
  calls: number;
  mcp?: string;
}

interface Figures {
  p50: number;
  p90: number;
  cpu: number;
  peakMb: number;
  idleMb: number;
  idlePssMb: number;
  perSecond: number;
  ofIdeal: number | null;
}

const runnerPath = fileURLToPath(new URL('./turnRunner.js', import.meta.url));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

function ask(child: ChildProcess, req: RunRequest): Promise<RunReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench runner: no answer in 300 s')), 300_000);
    const exited = (code: number | null): void => reject(new Error(`bench runner exited ${code}`));
    child.once('exit', exited);
    child.once('message', (reply) => {
      clearTimeout(timer);
      child.off('exit', exited);
      resolve(reply as RunReply);
    });
    child.send(req);
  });
}

function startRunner(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const execArgv = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = fork(runnerPath, [], { env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench runner: not ready in 30 s')), 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`bench runner exited ${code}`)));
  });
}

async function measure(s: Scenario, maxTurns: string | undefined): Promise<Figures> {
  const model = await startScriptedModel(s.playbook);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_MODEL: model.url,
    ...(s.mcp ? { BENCH_MCP: s.mcp } : {}),
    AGENTD_AGENT_MAX_PARALLEL_TURNS: String(s.slots),
    ...(maxTurns ? { AGENTD_AGENT_WORKER_MAX_TURNS: maxTurns } : {}),
  };
  const child = await startRunner(env);
  const pid = child.pid as number;
  await ask(child, { turns: Math.max(WARM, s.slots), slots: s.slots, prefix: 'warm' });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, sampleTree(pid).rssBytes);
  }, 50);
  const before = sampleTree(pid);
  const { times, wallMs } = await ask(child, { turns: s.turns, slots: s.slots, prefix: 'turn' });
  const after = sampleTree(pid);
  clearInterval(sampler);
  peak = Math.max(peak, after.rssBytes);
  await pause(2_000);
  const idle = memoryOfTree(pid);
  child.send('close');
  await new Promise((r) => child.once('exit', r));
  await model.close();
  const sorted = [...times].sort((a, b) => a - b);
  const perSecond = (s.turns / wallMs) * 1000;
  const ideal = s.calls * MODEL_MS > 0 ? s.slots / ((s.calls * MODEL_MS) / 1000) : null;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    cpu: (after.cpuMs - before.cpuMs) / s.turns,
    peakMb: peak / 1_048_576,
    idleMb: idle.rssBytes / 1_048_576,
    idlePssMb: idle.pssBytes / 1_048_576,
    perSecond,
    ofIdeal: ideal ? perSecond / ideal : null,
  };
}

function row(label: string, f: Figures): string {
  const n = (v: number, w = 7, d = 1): string => v.toFixed(d).padStart(w);
  const ideal = f.ofIdeal === null ? '      -' : n(f.ofIdeal, 7, 2);
  return (
    `| ${label.padEnd(54)} |${n(f.p50)} |${n(f.p90)} |${n(f.cpu)} |${n(f.peakMb, 6, 0)} |${n(f.idleMb, 6, 0)} |${n(f.idlePssMb, 7, 0)} |` +
    `${n(f.perSecond, 7, 1)} |${ideal} |`
  );
}

const toolRound = (delay?: number): Playbook => ({
  turns: [
    { tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }], ...(delay ? { delay_ms: delay } : {}) },
    { content: 'ok', ...(delay ? { delay_ms: delay } : {}) },
  ],
});
const { startMcpTestServer } = await import('../test/doubles/mcpTestServer.js');
const mcp = await startMcpTestServer();
const mcpRound: Playbook = {
  turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { content: 'ok' }],
};
const scenarios: Scenario[] = [
  { label: 'one tool round, 0 ms model, 1 slot', playbook: toolRound(), slots: 1, turns: TURNS, calls: 0 },
  {
    label: 'one MCP round (HTTP), 0 ms model, 1 slot',
    playbook: mcpRound,
    slots: 1,
    turns: 30,
    calls: 0,
    mcp: mcp.url,
  },
  {
    label: `one tool round, ${MODEL_MS} ms model, 4 slots`,
    playbook: toolRound(MODEL_MS),
    slots: 4,
    turns: 40,
    calls: 2,
  },
  {
    label: `one tool round, ${MODEL_MS} ms model, 16 slots`,
    playbook: toolRound(MODEL_MS),
    slots: 16,
    turns: 128,
    calls: 2,
  },
];
console.log(`turn bench: ${TURNS} turns after ${WARM} warm-up turns, a fresh conversation per turn`);
console.log(
  `| ${'scenario'.padEnd(54)} | p50 ms | p90 ms | CPU ms | peak MB | idle MB | idle PSS | turns/s | of ideal |\n` +
    `|${'-'.repeat(56)}|-------:|-------:|-------:|-------:|-------:|--------:|--------:|---------:|`,
);
// BENCH_ONLY=<index> runs one scenario, BENCH_MAX_TURNS=<n> one worker_max_turns (e.g. for a --cpu-prof run).
const only = process.env.BENCH_ONLY === undefined ? null : Number(process.env.BENCH_ONLY);
const maxTurnsList = process.env.BENCH_MAX_TURNS ? [process.env.BENCH_MAX_TURNS] : [undefined, '1'];
for (const [index, s] of scenarios.entries()) {
  if (only !== null && index !== only) continue;
  for (const maxTurns of maxTurnsList) {
    const label = `${s.label}${maxTurns ? `, max_turns ${maxTurns}` : ''}`;
    console.log(row(label, await measure(s, maxTurns)));
  }
}
await mcp.close();
console.log(
  'CPU: all processes of the agentd tree per turn; idle: the tree 2 s after the last turn (the bench runner holds\n' +
    'the supervisor); MB are RSS summed over the tree (shared pages counted in each process), PSS splits them.',
);
