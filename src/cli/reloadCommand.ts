// `agentd reload --url <a2a url> [--token <operator token>]` (or AGENTD_TOKEN, which `ps` does not show): asks a
// running daemon to reload its config through the operator command over A2A (interfaces §3.6) and prints what it
// did. Exit 0 applied or unchanged, 2 refused (an invalid file, a restart-only path, a stopping instance), 1 when
// the daemon could not be asked.
import { randomUUID } from 'node:crypto';
import { Command, CommanderError } from 'commander';
import { DaemonError } from '../errors.js';
import type { ReloadReport } from '../runtime/reload.js';
import { EXIT } from './exitCodes.js';
import { declareFlags, RELOAD_COMMAND } from './flagTable.js';
import type { CliResult } from './run.js';

const TIMEOUT_MS = 30_000;

/** Runs the subcommand; `argv` starts after `reload`. */
export async function runReloadCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  const opts = parseReloadArgs(argv, env);
  if ('print' in opts) return { code: EXIT.ok, stdout: opts.print };
  let report: ReloadReport;
  try {
    report = await askReload(opts.url, opts.token);
  } catch (err) {
    process.stderr.write(`agentd reload: ${err instanceof Error ? err.message : String(err)}\n`);
    return { code: EXIT.generic };
  }
  if (report.result === 'applied') {
    return {
      code: EXIT.ok,
      stdout: `reloaded: generation ${report.generation}; changed: ${report.changed.join(', ')}`,
    };
  }
  if (report.result === 'unchanged') return { code: EXIT.ok, stdout: `unchanged: generation ${report.generation}` };
  const why =
    report.result === 'invalid'
      ? report.error
      : report.result === 'stopping'
        ? 'the instance is stopping'
        : `restart required for ${report.paths.join(', ')}`;
  process.stderr.write(`agentd reload: refused (${report.result}): ${why}\n`);
  return { code: EXIT.config };
}

function parseReloadArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { url: string; token: string | null } | { print: string } {
  let help = '';
  const program = declareFlags(new Command().name('agentd reload'), RELOAD_COMMAND.flags)
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: (text) => (help += text) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.code === 'commander.helpDisplayed') return { print: help };
    if (err instanceof CommanderError) throw new DaemonError('usage_invalid', err.message.replace(/^error: /, ''));
    throw err;
  }
  const o = program.opts<{ url: string; token?: string }>();
  return { url: o.url, token: o.token ?? (env.AGENTD_TOKEN || null) };
}

/** Sends the `reload` command as a SendMessage and reads the report from the completed task. */
async function askReload(url: string, token: string | null): Promise<ReloadReport> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { agentd: { op: 'reload' } } }] };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) }).catch(
    (err: Error & { cause?: { code?: string; message?: string } }) => {
      throw new Error(`cannot reach ${url}: ${err.cause?.code ?? err.cause?.message ?? err.message}`);
    },
  );
  if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}`);
  const reply = (await res.json()) as { error?: { code: number; message: string }; result?: unknown };
  if (reply.error) throw new Error(`${reply.error.message} (${reply.error.code})`);
  const report = findReport(reply.result);
  if (report === null) throw new Error(`${url} answered without a reload report`);
  return report;
}

/** The report inside the task: the command's result travels as JSON text in one of its parts. */
function findReport(value: unknown): ReloadReport | null {
  if (typeof value === 'string') {
    try {
      return findReport(JSON.parse(value));
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.result === 'string' && typeof record.generation === 'number') return record as ReloadReport;
  for (const inner of Object.values(record)) {
    const found = findReport(inner);
    if (found !== null) return found;
  }
  return null;
}
