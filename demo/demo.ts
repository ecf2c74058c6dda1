// The offline demo (README Quick start): a real agentd job against the scripted model, no API key needed.
// It shows the turn's events as they happen, then the reply the job printed on stdout.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../test/doubles/scriptedModel.js';

const SHOWN = new Set(['restore.done', 'inbox.accepted', 'turn.spawn', 'tool.request', 'plan.updated', 'turn.done']);
const bin = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

const model = await startScriptedModel({
  turns: [
    {
      tool_calls: [
        { name: 'memory.set', arguments: { key: 'greeting', value: 'hello from a durable agent' } },
        { name: 'plan.create', arguments: { goal: 'greet the user', items: ['remember a greeting', 'say it'] } },
      ],
    },
    { content: 'unused' },
    { tool_calls: [{ name: 'memory.get', arguments: { key: 'greeting' } }] },
    { content: 'I stored a greeting in durable memory and read it back: "hello from a durable agent".' },
  ],
});
const stateDir = mkdtempSync(join(tmpdir(), 'agentd-demo-'));
console.error(`scripted model listening at ${model.url}; state in ${stateDir}\n`);

const args = [
  bin,
  '--intelligence',
  model.url,
  '--model',
  'scripted',
  '--prompt',
  'Remember a greeting, then tell me.',
];
const child = spawn(process.execPath, args, { env: { ...process.env, AGENTD_STATE_DIR: stateDir } });
let stdout = '';
let partial = '';
child.stdout.on('data', (c: Buffer) => {
  stdout += c.toString();
});
child.stderr.on('data', (c: Buffer) => {
  const lines = (partial + c.toString()).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) showEvent(line);
});
const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
await model.close();
rmSync(stateDir, { recursive: true, force: true });
console.error(`\nagentd exited ${code}; it printed on stdout:`);
process.stdout.write(stdout);
process.exitCode = code;

function showEvent(line: string): void {
  let ev: Record<string, unknown>;
  try {
    ev = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  if (ev.comp !== 'supervisor' || !SHOWN.has(String(ev.event))) return;
  const { ts: _ts, level: _level, pid: _pid, comp: _comp, event, ...fields } = ev;
  console.error(`  ${String(event).padEnd(16)} ${JSON.stringify(fields)}`);
}
