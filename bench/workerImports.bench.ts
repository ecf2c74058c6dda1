// The worker's import cost (issue 20): one turn in a fresh worker process on a zero-latency scripted model, plain,
// with code tools (a defineTool module, so zod), with tracing on (the OpenTelemetry SDK), and both. Prints the
// modules the process loaded (ESM and CommonJS: all, OpenTelemetry, zod), the wall time from spawn to the turn's
// `turn_done` frame and to the process's exit (a traced worker exports its spans in between). Asserts nothing.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeFrame, FrameDecoder } from '../src/protocol/frameCodec.js';
import { PROTOCOL_VERSION, type SpawnPayload } from '../src/protocol/frames.js';
import { startScriptedModel } from '../test/doubles/scriptedModel.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const workerMain = fileURLToPath(new URL('../src/worker/main.js', import.meta.url));
const importLog = fileURLToPath(new URL('../test/fixtures/importLog.js', import.meta.url));
const cjsLog = fileURLToPath(new URL('./cjsLog.js', import.meta.url));
const toolsModule = new URL('../test/fixtures/definedTools.js', import.meta.url).href;

interface Scenario {
  label: string;
  code: boolean;
  trace: boolean;
}

const SCENARIOS: Scenario[] = [
  { label: 'plain', code: false, trace: false },
  { label: 'code tools', code: true, trace: false },
  { label: 'tracing on', code: false, trace: true },
  { label: 'code tools + tracing', code: true, trace: true },
];

function payloadFor(s: Scenario, model: string, collector: string): SpawnPayload {
  return {
    version: PROTOCOL_VERSION,
    mcp_servers: [],
    code_tools_module: s.code ? toolsModule : null,
    intelligence: {
      endpoints: [model],
      token: null,
      timeout_ms: 30_000,
      model: 'bench',
      dialect: 'openai',
      headers: [],
    },
    limits: { max_steps: 5, max_tokens: 0, deadline_ms: 30_000 },
    telemetry: {
      instance: 'bench',
      agent_path: 'turn/root',
      log_level: 'error',
      log_content: false,
      ...(s.trace ? { trace: { traceparent: '', endpoint: collector } } : {}),
    },
    turn: {
      kind: 'turn',
      system: 'You are a bench agent.',
      messages: [{ role: 'user', text: 'hello', ts: 1 }],
      tools: [],
      internal: [],
      ...(s.code ? { code_tools: ['lookup_order', 'slow'] } : {}),
      mcp_routes: {},
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: 'bench/root',
      max_tokens_per_call: 0,
      turn_id: 'turn-1',
    },
  };
}

interface TurnFigures {
  /** Spawn to the `turn_done` frame, and to the exit. */
  doneMs: number;
  exitMs: number;
  modules: string[];
}

/** One worker turn; with `log`, the module URLs it loaded (the hooks cost time: timed runs go without). */
async function oneTurn(payload: SpawnPayload, log?: string): Promise<TurnFigures> {
  const start = performance.now();
  const hooks = log ? ['--import', importLog, '--import', cjsLog] : [];
  const child = spawn(process.execPath, [...hooks, workerMain], {
    env: { ...process.env, ...(log ? { AGENTD_IMPORT_LOG: log } : {}) },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let doneMs = Number.NaN;
  const decoder = new FrameDecoder();
  child.stdout.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk) as Array<{ type?: string }>) {
      if (frame.type === 'turn_done') doneMs = performance.now() - start;
    }
  });
  child.stdin.write(encodeFrame({ type: 'spawn', ...payload }));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const exitMs = performance.now() - start;
  if (code !== 0) throw new Error(`the worker exited ${code}`);
  const modules = log && existsSync(log) ? [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))] : [];
  return { doneMs, exitMs, modules };
}

/** An OTLP collector that takes every export (a silent one would make the worker wait out its export bound). */
async function startCollector(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, close: () => server.close() };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const model = await startScriptedModel({ turns: [{ content: 'ok' }] });
const collector = await startCollector();
const dir = mkdtempSync(join(tmpdir(), 'agentd-imports-'));
try {
  console.log(`worker import cost: one turn per fresh worker, median of ${RUNS} runs (wall ms from spawn)`);
  const head = ['modules', 'otel', 'zod', 'done ms', 'exit ms'].map((h) => h.padStart(9)).join('');
  console.log('scenario'.padEnd(22) + head);
  for (const [i, s] of SCENARIOS.entries()) {
    const payload = payloadFor(s, model.url, collector.url);
    const { modules } = await oneTurn(payload, join(dir, `imports-${i}.log`));
    const runs: TurnFigures[] = [];
    for (let r = 0; r < RUNS; r++) runs.push(await oneTurn(payload));
    const otel = modules.filter((u) => u.includes('@opentelemetry')).length;
    const zod = modules.filter((u) => u.includes('/node_modules/zod/')).length;
    const ms = [median(runs.map((r) => r.doneMs)), median(runs.map((r) => r.exitMs))].map((n) => n.toFixed(0));
    console.log(s.label.padEnd(22) + [modules.length, otel, zod, ...ms].map((n) => String(n).padStart(9)).join(''));
  }
} finally {
  collector.close();
  await model.close();
}
