// `agentd tui` (issue 18 item 3): attaches the terminal UI to a running daemon, or with `--start` starts one from
// `--config` (its logs to a file, the terminal is the UI's) and stops it on quit. Loaded only for this subcommand,
// so Ink and React never load on the job path.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink';
import { createElement } from 'react';
import { DaemonClient } from '../client/daemonClient.js';
import { TuiApp } from '../client/tuiApp.js';
import { DaemonError } from '../errors.js';
import { leanHeapArgs } from '../runtime/leanHeap.js';
import { resolveEndpoint, resolveToken } from './clientEndpoint.js';
import { EXIT } from './exitCodes.js';
import type { CliResult } from './run.js';

const LISTEN_WAIT_MS = 60_000;
const STOP_WAIT_MS = 30_000;
const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

export async function runTui(
  _args: string[],
  o: { url?: string; token?: string; config?: string; start?: unknown; conversation?: unknown; inline?: unknown },
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  let daemon: ChildProcess | null = null;
  let url: string;
  let token: string | null;
  if (o.start === true) {
    if (!o.config) throw new DaemonError('usage_invalid', '--start needs --config FILE (a config with a2a.listen)');
    // Compiled before the daemon starts: a config that does not compile is exit 2 with nothing started.
    token = resolveToken(o, env);
    const started = await startDaemon(o.config, env);
    daemon = started.child;
    url = started.url;
    process.stderr.write(`agentd tui: endpoint ${url} · daemon logs → ${started.log}\n`);
  } else {
    ({ url, token } = resolveEndpoint(o, env));
  }
  const client = new DaemonClient({ url, token });
  const open = typeof o.conversation === 'string' ? o.conversation : 'latest';
  // Fullscreen by default: the alternate screen, left on exit so the shell's screen comes back as it was; `--inline`
  // draws in the normal buffer, where the last frame stays in the scrollback after quitting.
  const fullscreen = o.inline !== true && process.stdout.isTTY === true;
  if (fullscreen) process.stdout.write(ENTER_ALT_SCREEN);
  const ui = render(createElement(TuiApp, { client, open, onQuit: () => {} }), { exitOnCtrlC: false });
  // A closed terminal (SIGHUP) or a stop signal ends the UI like /quit, so a started daemon is stopped too.
  const onSignal = (): void => ui.unmount();
  for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) process.once(signal, onSignal);
  try {
    await ui.waitUntilExit();
  } finally {
    for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) process.off(signal, onSignal);
    if (fullscreen) process.stdout.write(LEAVE_ALT_SCREEN);
  }
  if (daemon) return { code: await stopDaemon(daemon) };
  return { code: EXIT.ok };
}

/** Starts `agentd --config FILE` with its stderr in a log file; resolves once its listener is bound. */
function startDaemon(
  config: string,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string; log: string }> {
  const log = env.AGENTD_INTERFACE_LOG || join(tmpdir(), `agentd-tui-${process.pid}.log`);
  // Owner-only: the daemon's log may name principals and paths that are no one else's business.
  const file = createWriteStream(log, { flags: 'a', mode: 0o600 });
  const child = spawn(process.execPath, [...leanHeapArgs(env), process.argv[1] ?? '', '--config', config], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: the terminal's signals (a hangup would reload it) reach the UI, which stops it.
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let partial = '';
    const timer = setTimeout(
      () => fail(`the daemon did not listen within ${LISTEN_WAIT_MS} ms (see ${log})`),
      LISTEN_WAIT_MS,
    );
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(new Error(why));
    };
    child.once('exit', (code) => fail(`the daemon exited with code ${code} before it listened (see ${log})`));
    child.stderr?.on('data', (chunk: Buffer) => {
      file.write(chunk);
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const bound = /"event":"a2a\.listen".*"bound":"([^"]+)"/.exec(line)?.[1];
        if (bound === undefined) continue;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, url: bound, log });
      }
    });
  });
}

/** SIGTERM (a drain), then the daemon's own exit code. */
export function stopDaemon(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    // A daemon that already died emits no more `exit`: waiting for one would hang the TUI's own exit.
    if (child.exitCode !== null) return resolve(child.exitCode);
    if (child.signalCode !== null) return resolve(EXIT.generic);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? EXIT.generic);
    });
    child.kill('SIGTERM');
  });
}
