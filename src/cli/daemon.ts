// A daemon-shaped run (a config with `a2a.listen`): the A2A listener in front of the supervisor, until SIGTERM
// (or the operator's `drain` command) drains it and it exits 0. A second SIGTERM exits at once.
import { A2aListener } from '../a2a/listener.js';
import { TaskBackend } from '../a2a/taskBackend.js';
import type { Config } from '../config/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { serveMetrics } from '../obs/metricsServer.js';
import type { Store } from '../store/store.js';
import { Supervisor } from '../supervisor/supervisor.js';
import type { ToolSurface } from '../tools/surface.js';
import { VERSION } from './args.js';
import { EXIT, exitCodeForError } from './exitCodes.js';
import type { CliResult } from './run.js';

export interface DaemonContext {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  tools: ToolSurface;
  /** Accepts the startup prompt (deduplicated across restarts) once the supervisor runs. */
  startupPrompt(sup: Supervisor): void;
}

export async function runDaemon(ctx: DaemonContext): Promise<CliResult> {
  const { config, store, log, tools } = ctx;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const backend = new TaskBackend({ store, log, now: Date.now, drain: () => stop(), wake: config.agent });
  const sup = new Supervisor({ config, store, log, tools, tasks: backend });
  backend.attach(sup);
  let metrics: Awaited<ReturnType<typeof serveMetrics>>;
  try {
    metrics = await serveMetrics(config.observability.metrics_addr, sup, log);
  } catch (err) {
    process.stderr.write(`agentd: ${describeError(err)}\n`);
    return { code: exitCodeForError(err) };
  }
  await sup.restore();
  const instance = { name: config.agent.name, description: config.agent.instruction, version: VERSION };
  const listener = await A2aListener.start({ config, backend, log, instance });
  backend.setListening(true);
  ctx.startupPrompt(sup);
  const signals = trapSignals(log, () => stop());
  try {
    await stopped;
    backend.setListening(false);
    await sup.drain(config.lifecycle.drain_timeout);
    await listener.close();
    return { code: EXIT.ok };
  } finally {
    signals();
    await metrics?.close();
  }
}

/** The first SIGTERM / SIGINT drains; a second one exits at once. */
function trapSignals(log: Logger, onFirst: () => void): () => void {
  let seen = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (seen) {
      log.warn('proc.exit', { code: EXIT.generic, signal, forced: true });
      process.exit(EXIT.generic);
    }
    seen = true;
    onFirst();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
