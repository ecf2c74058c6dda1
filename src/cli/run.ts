// The `agentd` command: config → store → supervisor → the job, and the one exit code it ends with.
// A job-shaped run (a prompt, no listener) prints only the reply on stdout; events go to stderr.
import { createHash } from 'node:crypto';
import { compileConfig } from '../config/compile.js';
import type { Config } from '../config/types.js';
import { DaemonError, describeError } from '../errors.js';
import { createLogger, type Logger, redact } from '../obs/log.js';
import { openStore } from '../store/openStore.js';
import type { InboxOutcome, Store } from '../store/store.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { type CliArgs, parseArgs } from './args.js';
import { EXIT, exitCodeForError, exitCodeForFinish, exitCodeForStatus } from './exitCodes.js';

/** What the process should do at the end: print `stdout` (if any), then exit with `code`. */
export interface CliResult {
  code: number;
  stdout?: string;
}

/** Runs the CLI; never calls process.exit itself (main.ts does). */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  let args: CliArgs;
  let config: Readonly<Config>;
  try {
    const parsed = parseArgs(argv);
    if ('print' in parsed) return { code: EXIT.ok, stdout: parsed.print };
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
  let store: Store;
  try {
    store = openStore(config.store);
  } catch (err) {
    return failBeforeStart(err);
  }
  log.info('store.opened', { kind: store.kind, path: store.location, generation: store.generation });
  try {
    return await runJob(config, store, log, env);
  } finally {
    store.close();
  }
}

function failBeforeStart(err: unknown): CliResult {
  process.stderr.write(`agentd: ${redact(describeError(err))}\n`);
  return { code: exitCodeForError(err) };
}

async function runJob(config: Readonly<Config>, store: Store, log: Logger, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const killAt = new Set((env.AGENTD_TEST_KILL_AT ?? '').split(',').filter(Boolean));
  // A one-shot job has no next turn to warm a worker for.
  const sup = new Supervisor({ config, store, log, killAt, warmWorkers: 0 });
  const stopSignals = installSignals(sup, config, log);
  try {
    const { pending } = sup.restore();
    const prompt = config.agent.prompt;
    if (prompt === null || prompt === '') {
      if (pending === 0) {
        process.stderr.write('agentd: nothing to do: pass --prompt TEXT (or set agent.prompt)\n');
        return { code: EXIT.config };
      }
      await sup.whenIdle();
      return { code: EXIT.ok };
    }
    const outcome = await runPrompt(sup, store, log, prompt);
    await sup.whenIdle();
    return { code: jobExitCode(outcome), stdout: outcome.reply };
  } finally {
    stopSignals();
  }
}

/** Accepts the startup prompt once per store: a restart replays or reports it instead of accepting it again. */
async function runPrompt(sup: Supervisor, store: Store, log: Logger, prompt: string): Promise<InboxOutcome> {
  const dedupe = `prompt:${createHash('sha256').update(`root\n${prompt}`).digest('hex')}`;
  const existing = store.findInboxByDedupe(dedupe);
  if (existing) {
    log.info('prompt.skipped', {
      inbox_event: existing.id,
      reason: existing.status === 'done' ? 'answered' : 'pending',
    });
    if (existing.status === 'done' && existing.outcome) return existing.outcome;
    return sup.outcomeOf(existing.id);
  }
  const event = sup.accept({ context_id: 'root', text: prompt, principal: 'operator', dedupe_key: dedupe });
  if (!event) throw new DaemonError('internal', 'the startup prompt could not be accepted');
  return sup.outcomeOf(event.id);
}

function jobExitCode(outcome: InboxOutcome): number {
  if (outcome.finish_status !== undefined && outcome.status === 'completed') {
    return exitCodeForFinish(outcome.finish_status);
  }
  return exitCodeForStatus(outcome.status, outcome.error);
}

/** SIGTERM / SIGINT drain the supervisor; a second signal exits at once (pending events replay next start). */
function installSignals(sup: Supervisor, config: Readonly<Config>, log: Logger): () => void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      log.warn('proc.exit', { code: EXIT.generic, signal, forced: true });
      process.exit(EXIT.generic);
    }
    signalled = true;
    void sup.drain(config.lifecycle.drain_timeout).then(({ abandoned }) => {
      log.info('proc.exit', { code: abandoned > 0 ? EXIT.generic : EXIT.ok, signal });
      process.exit(abandoned > 0 ? EXIT.generic : EXIT.ok);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
