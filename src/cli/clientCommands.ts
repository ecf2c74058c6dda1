// The client subcommands (issue 18 item 2): `agentd send|tasks|status|cancel|answer|pause|resume|drain|goal|log|
// pair|tui` talk to a running daemon over its A2A listener (src/client/). stdout carries only the answer (a reply,
// a task id, a listing); errors go to stderr with a non-zero exit; `--json` prints machine-readable output.
import { Command, CommanderError } from 'commander';
import type { PairingAnswer } from '../a2a/commands.js';
import {
  DaemonClient,
  DaemonClientError,
  isTerminal,
  rejectedAnswer,
  stateName,
  taskText,
  type WireTask,
} from '../client/daemonClient.js';
import { statusLines } from '../client/statusLines.js';
import { DaemonError } from '../errors.js';
import { resolveEndpoint } from './clientEndpoint.js';
import { runLog } from './clientLog.js';
import { EXIT } from './exitCodes.js';
import { CLIENT_FLAGS, CLIENT_SUBCOMMANDS, declareFlags } from './flagTable.js';
import type { CliResult } from './run.js';

export const CLIENT_COMMANDS: ReadonlySet<string> = new Set(CLIENT_SUBCOMMANDS.map((c) => c.name));

interface Common {
  url?: string;
  token?: string;
  config?: string;
  json?: boolean;
}

type Action = (client: DaemonClient, args: string[], o: Common & Record<string, unknown>) => Promise<CliResult>;

const json = (value: unknown): CliResult => ({ code: EXIT.ok, stdout: JSON.stringify(value, null, 2) });

/** Runs `agentd <name> …`; `argv` starts after the subcommand's name. */
export async function runClientCommand(name: string, argv: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let help = '';
  const program = commandFor(name)
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: (text) => (help += text) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.code === 'commander.helpDisplayed') return { code: EXIT.ok, stdout: help };
    if (err instanceof CommanderError) return usage(name, err.message.replace(/^error: /, ''));
    throw err;
  }
  const o = program.opts<Common & Record<string, unknown>>();
  try {
    if (name === 'tui') {
      const { runTui } = await importTui();
      return await runTui(program.args, o, env);
    }
    const client = new DaemonClient(resolveEndpoint(o, env));
    return await ACTIONS[name]!(client, program.args, o);
  } catch (err) {
    if (err instanceof DaemonError && err.code === 'usage_invalid') return usage(name, err.message);
    const why = err instanceof DaemonClientError && typeof err.code === 'number' ? ` (${err.code})` : '';
    process.stderr.write(`agentd ${name}: ${err instanceof Error ? err.message : String(err)}${why}\n`);
    return { code: EXIT.generic };
  }
}

/**
 * Ink draws only its last frame, at exit, when `CI` or `CONTINUOUS_INTEGRATION` is set (is-in-ci, read once when Ink
 * loads). A person at a real terminal inside a CI job or a CI-flavoured shell still needs the live screen, so with a
 * TTY those flags are hidden while the TUI's modules load, then restored.
 */
async function importTui(): Promise<typeof import('./tuiCommand.js')> {
  if (!process.stdout.isTTY) return import('./tuiCommand.js');
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await import('./tuiCommand.js');
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
  }
}

function usage(name: string, message: string): CliResult {
  process.stderr.write(`agentd ${name}: ${message}\n`);
  return { code: EXIT.config };
}

/** The subcommand's parser, built from its entry in the flag table plus the flags every client command takes. */
function commandFor(name: string): Command {
  const spec = CLIENT_SUBCOMMANDS.find((c) => c.name === name);
  const command = new Command(`agentd ${name}`).allowExcessArguments(false);
  return declareFlags(command, [...(spec?.flags ?? []), ...CLIENT_FLAGS], spec?.args);
}

/** A settled send's answer: the reply on stdout, or why not on stderr with exit 1 (a question: exit 0). */
function settled(task: WireTask): CliResult {
  const state = stateName(task);
  if (state === 'completed') return { code: EXIT.ok, stdout: taskText(task) };
  const text = task.status.message?.parts?.map((p) => p.text ?? '').join('') ?? '';
  if (state === 'input_required') {
    process.stderr.write(`agentd: task ${task.id} asks: ${text}\n  answer with: agentd answer ${task.id} TEXT\n`);
    return { code: EXIT.ok };
  }
  process.stderr.write(`agentd: task ${task.id} ${state}${text ? `: ${text}` : ''}\n`);
  return { code: EXIT.generic };
}

const ACTIONS: Record<string, Action> = {
  async send(client, [text], o) {
    let conversation = o.conversation as string | undefined;
    // `latest` continues the caller's most recent conversation (none yet: a new one).
    if (conversation === 'latest') conversation = (await client.history('latest', 1)).contextId ?? undefined;
    const task = await client.send(text ?? '', {
      wait: o.wait !== false,
      plan: o.plan === true,
      ...(conversation ? { contextId: conversation } : {}),
    });
    if (o.json) return json(task);
    if (o.wait === false) return { code: EXIT.ok, stdout: task.id };
    return settled(task);
  },
  async tasks(client, _args, o) {
    const limit = Number(o.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new DaemonError('usage_invalid', '--limit: expected a count');
    const page = await client.listTasks({
      pageSize: limit,
      ...(o.page ? { pageToken: String(o.page) } : {}),
      ...(o.conversation ? { contextId: String(o.conversation) } : {}),
    });
    if (o.json) return json(page);
    const lines = page.tasks.map((t) =>
      [t.id, stateName(t).padEnd(14), t.contextId, t.status.timestamp ?? ''].join('  '),
    );
    if (page.nextPageToken) process.stderr.write(`more: agentd tasks --page ${page.nextPageToken}\n`);
    return { code: EXIT.ok, stdout: lines.join('\n') };
  },
  async status(client, _args, o) {
    const status = (await client.command('status')) as Record<string, unknown>;
    if (o.json) return json(status);
    const lines = statusLines(status);
    return { code: EXIT.ok, stdout: lines.join('\n') };
  },
  async cancel(client, [id], o) {
    const task = await client.cancel(id ?? '');
    return o.json ? json(task) : { code: EXIT.ok, stdout: `${task.id} ${stateName(task)}` };
  },
  async answer(client, [id, text], o) {
    const task = await client.answer(id ?? '', text ?? '', o.wait === true);
    // Refused by the question's schema: the task asks again, its question saying why (a2a/answerCheck.ts).
    if (rejectedAnswer(task) !== null) {
      process.stderr.write(`agentd answer: not taken; task ${task.id} asks again: ${taskText(task)}\n`);
      return { ...(o.json ? json(task) : {}), code: EXIT.generic };
    }
    if (o.json) return json(task);
    return isTerminal(task) ? settled(task) : { code: EXIT.ok, stdout: `${task.id} ${stateName(task)}` };
  },
  pause: (client, _a, o) => instance(client, 'pause', o),
  resume: (client, _a, o) => instance(client, 'resume', o),
  drain: (client, _a, o) => instance(client, 'drain', o),
  async goal(client, [action, objective], o) {
    const ctx = String(o.conversation);
    if (action === 'set') {
      if (!objective) throw new DaemonError('usage_invalid', 'goal set needs an objective');
      const budget = o.budget === undefined ? {} : { token_budget: Number(o.budget) };
      return json(await client.command('goal.set', { objective, ...budget }, ctx));
    }
    if (action === 'get' || action === 'clear') return json(await client.command(`goal.${action}`, {}, ctx));
    throw new DaemonError('usage_invalid', `goal ${action ?? ''}: expected set, get or clear`);
  },
  log: (client, _args, o) => runLog(client, o),
  async pair(client, _args, o) {
    const answer = (await client.command('pairing.code')) as { pairing: PairingAnswer };
    if (o.json) return json(answer);
    const { code, expires_in_ms: ttl, role, url } = answer.pairing;
    const minutes = Math.round(ttl / 60_000);
    process.stderr.write(`agentd pair: single use, signs in as ${role}, ${minutes} min; enter it at ${url}\n`);
    return { code: EXIT.ok, stdout: code };
  },
};

async function instance(client: DaemonClient, op: string, o: Common): Promise<CliResult> {
  const result = await client.command(op);
  if (o.json) return json(result);
  // Replicas: a drain names the one replica it drains (pause and resume hold the whole fleet).
  const replica = (result as { replica?: unknown } | null)?.replica;
  const which = typeof replica === 'string' ? ` (replica ${replica} only; the other replicas go on)` : '';
  return { code: EXIT.ok, stdout: `${op}: ok${which}` };
}
