// A daemon under test: the built agentd with a config file, its JSON-line events, and A2A request helpers.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SendMessageRequest, Task } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { userMessage } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { AGENTD_BIN, tempStateDir } from './harness.js';

export interface Daemon {
  child: ChildProcess;
  url: string;
  events: Array<Record<string, unknown>>;
  /** Everything the daemon (and its workers) wrote on stderr so far, verbatim. */
  stderr(): string;
  stop(): Promise<number | null>;
}

/** `flags`: more CLI flags. `launcher`: a command the daemon runs under (e.g. `['prlimit', '--nofile=256', '--']`); it must exec it. */
export async function startDaemon(
  dir: string,
  yaml: string,
  env: Record<string, string> = {},
  flags: string[] = [],
  launcher: string[] = [],
): Promise<Daemon> {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, yaml);
  const argv = [...launcher.slice(1), process.execPath, AGENTD_BIN, '--config', file, ...flags];
  const child = spawn(launcher[0] ?? argv.shift() ?? process.execPath, argv, {
    env: { PATH: process.env.PATH ?? '', AGENTD_STATE_DIR: dir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const events: Array<Record<string, unknown>> = [];
  let partial = '';
  const raw: string[] = [];
  child.stderr?.on('data', (c: Buffer) => {
    raw.push(c.toString());
    const lines = (partial + c.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await waitUntil(() => events.some((e) => e.event === 'a2a.listen'), 20_000, 'the daemon listens');
  const url = String(events.find((e) => e.event === 'a2a.listen')?.bound);
  return {
    child,
    url,
    events,
    stderr: () => raw.join(''),
    stop: async () => {
      child.kill('SIGTERM');
      return within(exited, 30_000, 'the daemon drains');
    },
  };
}

/** SIGKILLs the daemon, waits for it to exit, and starts a new one on the same store and config. */
export async function killAndRestart(daemon: Daemon, dir: string, yaml: string): Promise<Daemon> {
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
  daemon.child.kill('SIGKILL');
  await within(exited, 10_000, 'the killed daemon exits');
  return startDaemon(dir, yaml);
}

export function send(text: string, extra: Record<string, unknown> = {}, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message: userMessage(text, extra),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}

export const asTask = (r: unknown): Task => r as Task;
export const artifactText = (t: Task): string =>
  t.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');

/** A daemon over a scripted model that answers "ok": `lines` are the config's other sections, as YAML lines. */
export async function startOverModel(
  lines: string[],
  env: Record<string, string> = {},
): Promise<{ model: ScriptedModel; daemon: Daemon; stop(): Promise<void> }> {
  const model = await startScriptedModel({ turns: [{ content: 'ok' }] });
  const yaml = [...lines, 'intelligence:', `  endpoints: ${model.url}`, ''].join('\n');
  const daemon = await startDaemon(tempStateDir(), yaml, env);
  return {
    model,
    daemon,
    stop: async () => {
      await daemon.stop();
      await model.close();
    },
  };
}
