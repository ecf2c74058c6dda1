// The `agentd` command: config → the runtime → the job or the daemon, and the one exit code it ends with.
// A job-shaped run (a prompt, no listener) prints only the reply on stdout; events go to stderr.
import { compileConfig } from '../config/compile.js';
import type { Config, ConfigSources } from '../config/types.js';
import { BUILTIN_PROMPT_TEMPLATE } from '../context/systemPrompt.js';
import { describeError } from '../errors.js';
import { createLogger, type Logger, redact } from '../obs/log.js';
import { type Runtime, startRuntime } from '../runtime/startRuntime.js';
import { StartupPrompt } from '../runtime/startupPrompt.js';
import { ToolSurface } from '../tools/surface.js';
import { type CliArgs, parseArgs, VERSION } from './args.js';
import { CLIENT_COMMANDS, runClientCommand } from './clientCommands.js';
import { runDaemon } from './daemon.js';
import { EXIT, exitCodeForError, exitCodeForOutcome } from './exitCodes.js';
import { noteJobStore } from './jobStore.js';
import { runReloadCommand } from './reloadCommand.js';
import { trapReloads } from './reloadTriggers.js';

/** What the process should do at the end: print `stdout` (if any), then exit with `code`. */
export interface CliResult {
  code: number;
  stdout?: string;
}

/** Runs the CLI; never calls process.exit itself (main.ts does, and a second interrupt signal). */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  let args: CliArgs;
  let config: Readonly<Config>;
  let sources: ConfigSources;
  const cwd = process.cwd();
  try {
    if (argv[2] === 'reload') return await runReloadCommand(argv.slice(3), env);
    if (argv[2] !== undefined && CLIENT_COMMANDS.has(argv[2]))
      return await runClientCommand(argv[2], argv.slice(3), env);
    const parsed = parseArgs(argv);
    if ('print' in parsed) return { code: EXIT.ok, stdout: parsed.print };
    if (parsed.contextTemplate) return { code: EXIT.ok, stdout: `${BUILTIN_PROMPT_TEMPLATE}\n` };
    args = parsed;
    sources = { files: args.configFiles, env, flags: args, cwd, oneShot: true };
    config = compileConfig(sources);
  } catch (err) {
    return failBeforeStart(err);
  }
  if (args.validateConfig) {
    process.stderr.write('agentd: configuration is valid\n');
    return { code: EXIT.ok };
  }
  const log = createLogger({ level: config.observability.log_level, base: { pid: process.pid, comp: 'supervisor' } });
  if (args.capabilities) return { code: EXIT.ok, stdout: await capabilities(config, log, env) };
  const daemon = config.a2a.listen !== null;
  noteJobStore(config, cwd, log);
  // Only a daemon reloads (interfaces §3.6): a job runs one prompt on the config it started with.
  const reloads = daemon ? trapReloads({ files: args.configFiles, watchFiles: args.watchConfig, cwd, log }) : null;
  let runtime: Runtime;
  try {
    const killAt = new Set((env.AGENTD_TEST_KILL_AT ?? '').split(',').filter(Boolean));
    // The same sources as at start, so a reload's result differs only by what the files and env changed.
    const reloadConfig = () => compileConfig(sources);
    // A one-shot job has no next turn to warm a worker for, and runs its prompt under pressure (docs/guide/operations.md "Pressure").
    const job = daemon ? {} : { warmWorkers: 0, pressureHolds: false };
    runtime = await startRuntime(config, { log, env, killAt, reloadConfig, ...job });
  } catch (err) {
    reloads?.remove();
    return failBeforeStart(err);
  }
  const stopSignals: NodeJS.Signals[] = daemon ? ['SIGTERM', 'SIGINT'] : ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const signals = trapSignals(log, stopSignals, () => void runtime.requestStop());
  reloads?.attach((source) => runtime.reload(source));
  try {
    return daemon ? await runDaemon(runtime) : await runJob(runtime);
  } finally {
    reloads?.remove();
    await runtime.stop();
    signals();
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

/** The job: the startup prompt's outcome (or, without one, whatever a restart left pending) decides the code. */
async function runJob(runtime: Runtime): Promise<CliResult> {
  const sup = runtime.supervisor;
  const prompt = runtime.producers.find((p): p is StartupPrompt => p instanceof StartupPrompt);
  if (prompt === undefined) {
    if (runtime.restored.pending === 0) {
      process.stderr.write('agentd: nothing to do: pass --prompt TEXT (or set agent.prompt)\n');
      return { code: EXIT.config };
    }
    await sup.whenIdle();
    return { code: EXIT.ok };
  }
  const outcome = await sup.outcomeOf(await prompt.accepted());
  await sup.whenIdle();
  return { code: exitCodeForOutcome(outcome), stdout: outcome.reply };
}

/**
 * The stop signals' handlers (a daemon's SIGHUP reloads instead, see reloadTriggers.ts; a job's hangup stops it
 * like SIGTERM). The first one starts a drain: no new turn starts, running turns get lifecycle.drain_timeout, and
 * the run still ends through its normal path with its own exit code (a job's abandoned or unstarted prompt exits 1
 * and replays on the next start; a daemon exits 0). A second signal exits at once. Returns what removes them.
 */
function trapSignals(log: Logger, names: readonly NodeJS.Signals[], onFirst: () => void): () => void {
  let seen = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (seen) {
      log.warn('proc.exit', { code: EXIT.generic, signal, forced: true });
      process.exit(EXIT.generic);
    }
    seen = true;
    onFirst();
  };
  for (const name of names) process.on(name, onSignal);
  return () => {
    for (const name of names) process.off(name, onSignal);
  };
}
