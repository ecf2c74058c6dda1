// The `agentd` command: config → store → supervisor → the job, and the one exit code it ends with.
// A job-shaped run (a prompt, no listener) prints only the reply on stdout; events go to stderr.
import { createHash } from 'node:crypto';
import { compileConfig } from '../config/compile.js';
import type { Config } from '../config/types.js';
import { BUILTIN_PROMPT_TEMPLATE } from '../context/systemPrompt.js';
import type { InboxOutcome } from '../domain/inbox.js';
import { describeError } from '../errors.js';
import { createLogger, type Logger, redact } from '../obs/log.js';
import { serveMetrics } from '../obs/metricsServer.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { ToolSurface } from '../tools/surface.js';
import { type CliArgs, parseArgs, VERSION } from './args.js';
import { runDaemon } from './daemon.js';
import { EXIT, exitCodeForError, exitCodeForFinish, exitCodeForStatus } from './exitCodes.js';

/** What the process should do at the end: print `stdout` (if any), then exit with `code`. */
export interface CliResult {
  code: number;
  stdout?: string;
}

/** Runs the CLI; never calls process.exit itself (main.ts does, and a second interrupt signal). */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  let args: CliArgs;
  let config: Readonly<Config>;
  try {
    const parsed = parseArgs(argv);
    if ('print' in parsed) return { code: EXIT.ok, stdout: parsed.print };
    if (parsed.contextTemplate) return { code: EXIT.ok, stdout: `${BUILTIN_PROMPT_TEMPLATE}\n` };
    args = parsed;
    config = compileConfig({ files: args.configFiles, env, flags: args, cwd: process.cwd() });
  } catch (err) {
    return failBeforeStart(err);
  }
  if (args.validateConfig) {
    process.stderr.write('agentd: configuration is valid\n');
    return { code: EXIT.ok };
  }
  const log = createLogger({ level: config.observability.log_level, base: { pid: process.pid, comp: 'supervisor' } });
  if (args.capabilities) return { code: EXIT.ok, stdout: await capabilities(config, log, env) };
  let tools: ToolSurface;
  try {
    tools = await ToolSurface.start({ config, log, baseEnv: env });
  } catch (err) {
    return failBeforeStart(err);
  }
  try {
    let store: Store;
    try {
      store = openStore(config.store);
    } catch (err) {
      return failBeforeStart(err);
    }
    log.info('store.opened', { kind: store.kind, path: store.location, generation: store.generation });
    try {
      if (config.a2a.listen !== null) {
        const startupPrompt = (sup: Supervisor): void => {
          if (!config.agent.prompt) return;
          startupPromptEvent(sup, log, config.agent.prompt).catch((err: unknown) =>
            log.error('inbox.accept.fail', { ctx: 'root', err: describeError(err) }),
          );
        };
        return await runDaemon({ config, store, log, tools, startupPrompt });
      }
      return await runJob({ config, store, log, tools, env });
    } finally {
      await store.close();
    }
  } finally {
    await tools.close();
  }
}

function failBeforeStart(err: unknown): CliResult {
  process.stderr.write(`agentd: ${redact(describeError(err))}\n`);
  return { code: exitCodeForError(err) };
}

/** `--capabilities`: what this instance offers, as JSON. Opens no store and calls no model. */
async function capabilities(config: Readonly<Config>, log: Logger, env: NodeJS.ProcessEnv): Promise<string> {
  const report: Record<string, unknown> = { version: VERSION, runtime: 'agentd-ts' };
  try {
    const tools = await ToolSurface.start({ config, log, baseEnv: env });
    Object.assign(report, tools.describe());
    await tools.close();
  } catch (err) {
    report.mcp_error = redact(describeError(err));
  }
  report.store = { kind: config.store.kind, path: config.store.path };
  report.a2a =
    config.a2a.listen === null
      ? null
      : { listen: config.a2a.listen, loopback_operator: config.a2a.principals.length === 0 };
  return JSON.stringify(report, null, 2);
}

interface JobContext {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  tools: ToolSurface;
  env: NodeJS.ProcessEnv;
}

async function runJob({ config, store, log, tools, env }: JobContext): Promise<CliResult> {
  const killAt = new Set((env.AGENTD_TEST_KILL_AT ?? '').split(',').filter(Boolean));
  // A one-shot job has no next turn to warm a worker for.
  const sup = new Supervisor({ config, store, log, tools, killAt, warmWorkers: 0 });
  let metrics: Awaited<ReturnType<typeof serveMetrics>>;
  try {
    metrics = await serveMetrics(config.observability.metrics_addr, sup, log);
  } catch (err) {
    return failBeforeStart(err);
  }
  const signals = installSignals(sup, config, log);
  try {
    const { pending } = await sup.restore();
    const prompt = config.agent.prompt;
    if (prompt === null || prompt === '') {
      if (pending === 0) {
        process.stderr.write('agentd: nothing to do: pass --prompt TEXT (or set agent.prompt)\n');
        return { code: EXIT.config };
      }
      await sup.whenIdle();
      await signals.drained();
      return { code: EXIT.ok };
    }
    const outcome = await runPrompt(sup, log, prompt);
    await sup.whenIdle();
    await signals.drained();
    return { code: jobExitCode(outcome), stdout: outcome.reply };
  } finally {
    signals.dispose();
    await metrics?.close();
  }
}

/**
 * Accepts the startup prompt once per store: a restart replays or reports it instead of accepting it again
 * (the inbox's idempotency key, the same one that makes a retried SendMessage safe).
 */
async function startupPromptEvent(sup: Supervisor, log: Logger, prompt: string): Promise<string> {
  const dedupe = `prompt:${createHash('sha256').update(`root\n${prompt}`).digest('hex')}`;
  const { record, created } = await sup.accept({
    context_id: 'root',
    text: prompt,
    principal: 'operator',
    dedupe_key: dedupe,
  });
  if (!created)
    log.info('prompt.skipped', { inbox_event: record.id, reason: record.status === 'done' ? 'answered' : 'pending' });
  return record.id;
}

async function runPrompt(sup: Supervisor, log: Logger, prompt: string): Promise<InboxOutcome> {
  return sup.outcomeOf(await startupPromptEvent(sup, log, prompt));
}

function jobExitCode(outcome: InboxOutcome): number {
  if (outcome.finish_status !== undefined && outcome.status === 'completed') {
    return exitCodeForFinish(outcome.finish_status);
  }
  return exitCodeForStatus(outcome.status, outcome.error);
}

/**
 * SIGTERM / SIGINT start a drain: no new turn starts, running turns get lifecycle.drain_timeout to finish, and the
 * job still ends through its normal path with its own exit code (an abandoned or unstarted prompt exits 1 and
 * replays on the next start). A second signal exits at once.
 */
function installSignals(sup: Supervisor, config: Readonly<Config>, log: Logger) {
  let draining: Promise<unknown> | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (draining) {
      log.warn('proc.exit', { code: EXIT.generic, signal, forced: true });
      process.exit(EXIT.generic);
    }
    draining = sup.drain(config.lifecycle.drain_timeout);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    drained: () => draining ?? Promise.resolve(),
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
