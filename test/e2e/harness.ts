// Runs the built `agentd` binary as a real process: argv in, exit code, stdout and parsed stderr events out.
// Every run has a hard timeout so a hang fails the test instead of CI.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const AGENTD_BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface AgentdRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  events: Array<Record<string, unknown>>;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** The working directory (where a default `./.agentd` would land); the test's own by default. */
  cwd?: string;
  timeoutMs?: number;
  /** Called for each event as it arrives; may kill the child (chaos tests). */
  onEvent?: (event: Record<string, unknown>, child: ChildProcess) => void;
}

/** A fresh state directory for one test. */
export function tempStateDir(): string {
  return mkdtempSync(join(tmpdir(), 'agentd-e2e-'));
}

export function runAgentd(args: string[], opts: RunOptions = {}): Promise<AgentdRun> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENTD_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    const events: Array<Record<string, unknown>> = [];
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      const text = c.toString();
      stderr += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const ev = parseEvent(line);
        if (!ev) continue;
        events.push(ev);
        opts.onEvent?.(ev, child);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agentd ${args.join(' ')} did not exit within ${timeoutMs} ms\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = parseEvent(partial);
      if (last) events.push(last);
      resolve({ code, signal, stdout, stderr, events });
    });
  });
}

function parseEvent(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The events named `name`, optionally only those of one component (`supervisor` or `worker`). */
export function eventsNamed(
  run: Pick<AgentdRun, 'events'>,
  name: string,
  comp?: string,
): Array<Record<string, unknown>> {
  return run.events.filter((e) => e.event === name && (comp === undefined || e.comp === comp));
}
