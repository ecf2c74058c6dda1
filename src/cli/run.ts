// The `agentd` command: config → the runtime → the job or the daemon, and the one exit code it ends with.
// A job-shaped run (a prompt, no listener) prints only the reply on stdout; events go to stderr.
import { compileConfig } from '../config/compile.js';
import type { Config, ConfigSources } from '../config/types.js';
import { BUILTIN_PROMPT_TEMPLATE } from '../context/systemPrompt.js';
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import { createLogger, type Logger, redact } from '../obs/log.js';
import { liveShape, logIdleExit, untilIdleExit } from '../runtime/idleExit.js';
import { type Runtime, startRuntime } from '../runtime/startRuntime.js';
import { StartupPrompt } from '../runtime/startupPrompt.js';
import { ToolSurface } from '../tools/surface.js';
import {
  exitCodeForRun,
  hasRecurringStart,
  type LifeShape,
  lastNonZero,
  printedOutput,
  shapeOf,
} from '../triggers/lifeShape.js';
import { LazyWorkflows } from '../workflows/lazyWorkflows.js';
import { workflowLoader } from '../workflows/workflowLoader.js';
import { type CliArgs, parseArgs, VERSION } from './args.js';
import { runDaemon } from './daemon.js';
import { EXIT, exitCodeForError, exitCodeForOutcome } from './exitCodes.js';
import { CLIENT_SUBCOMMANDS } from './flagTable.js';
import { noteJobStore } from './jobStore.js';
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
    // A client command loads its modules itself: the daemon never holds them (issue 14).
    if (argv[2] === 'reload') return await (await import('./reloadCommand.js')).runReloadCommand(argv.slice(3), env);
    if (CLIENT_SUBCOMMANDS.some((c) => c.name === argv[2]))
      return await (await import('./clientCommands.js')).runClientCommand(argv[2] as string, argv.slice(3), env);
    const parsed = parseArgs(argv);
    if ('print' in parsed) return { code: EXIT.ok, stdout: parsed.print };
    if (parsed.contextTemplate) return { code: EXIT.ok, stdout: `${BUILTIN_PROMPT_TEMPLATE}\n` };
    args = parsed;
    sources = { files: args.configFiles, env, flags: args, cwd, oneShot: true, workflows: await workflowLoader() };
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
  // Shaped once at start for the signals, reloads and warm pool; the live shape is re-checked while it runs.
  const daemon = startShape(config) === 'daemon';
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
    return config.a2a.listen !== null ? await runDaemon(runtime) : await runJob(runtime, log);
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

/**
 * Without a listener: the startup prompt and this life's `once` runs, then an exit once idle (reference §3.1) with
 * the code they give (§2.10: the last non-zero wins); a daemon shape (recurring starts, `run_until: drained`)
 * serves until a stop. Stdout: the prompt's reply, else the newest `once` run's output.
 */
async function runJob(runtime: Runtime, log: Logger): Promise<CliResult> {
  const sup = runtime.supervisor;
  const prompt = runtime.producers.find((p): p is StartupPrompt => p instanceof StartupPrompt);
  const workflows = runtime.producers.find((p): p is LazyWorkflows => p instanceof LazyWorkflows);
  const onceRuns = (await workflows?.settled) ?? [];
  const parts = { config: runtime.config, supervisor: sup, workflows, clock: Date.now };
  const defined = (workflows?.desk?.definitions().size ?? 0) > 0;
  if (prompt === undefined && runtime.restored.pending === 0 && !defined && liveShape(parts).shape === 'job') {
    process.stderr.write('agentd: nothing to do: pass --prompt TEXT (or set agent.prompt)\n');
    return { code: EXIT.config };
  }
  const outcome = prompt ? await sup.outcomeOf(await prompt.accepted()) : null;
  const end = await untilIdleExit(parts, runtime.stopRequested);
  await sup.whenIdle();
  const runs = await Promise.all(onceRuns.map((id) => workflows?.desk?.run(id)));
  const ended = runs.filter((r): r is Readonly<WorkflowRun> => r != null && TERMINAL_RUN.has(r.status));
  // A run a stop left unfinished counts as cancelled (it resumes in the next life).
  const codes = [
    ...(outcome ? [exitCodeForOutcome(outcome)] : []),
    ...runs.map((r) => (r && TERMINAL_RUN.has(r.status) ? exitCodeForRun(r) : EXIT.generic)),
  ];
  const code = lastNonZero(codes);
  if (end === 'idle') logIdleExit(log, code);
  const stdout = outcome ? outcome.reply : printedOutput(ended.sort((a, b) => a.updated - b.updated).at(-1)?.output);
  return { code, ...(stdout === undefined ? {} : { stdout }) };
}

/** The shape at start, from the configured definitions (stored ones are known only once the store is open). */
function startShape(config: Readonly<Config>): LifeShape {
  const recurring = hasRecurringStart(config.workflows);
  return shapeOf(config.lifecycle.run_until, config.a2a.listen !== null, recurring);
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
