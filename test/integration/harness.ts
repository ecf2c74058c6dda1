// An in-process supervisor over a real temporary SQLite store, real worker processes and the scripted model.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskBackend } from '../../src/a2a/taskBackend.js';
import { compileConfig } from '../../src/config/compile.js';
import type { InboxOutcome } from '../../src/domain/inbox.js';
import { createLogger } from '../../src/obs/log.js';
import type { ProducerContext } from '../../src/runtime/producer.js';
import { PRODUCERS } from '../../src/runtime/producerList.js';
import { ProducerRegistry } from '../../src/runtime/producers.js';
import { TaskHooksSlot } from '../../src/runtime/taskSlot.js';
import { WorkPortSlot } from '../../src/runtime/workPortSlot.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import type { AcceptInput } from '../../src/supervisor/supervisorOptions.js';
import type { WorkerEntry } from '../../src/supervisor/workerHandle.js';
import { ToolSurface } from '../../src/tools/surface.js';
import { A2aStarts } from '../../src/triggers/a2aStarts.js';
import { loadWorkflow } from '../../src/workflows/definitions.js';
import type { Playbook, ScriptedModel } from '../doubles/scriptedModel.js';
import { startScriptedModel } from '../doubles/scriptedModel.js';
import { within } from './wait.js';

export interface Rig {
  /** The state directory (also the config's cwd; a second rig over it is a restart). */
  dir: string;
  sup: Supervisor;
  /** The task backend, with `tasks: true`. */
  backend?: TaskBackend;
  /** The A2A start registry, with `a2aStarts: true`. */
  a2aStarts?: A2aStarts;
  store: Store;
  /** The work ports producers plugged in (the workflow desk is `ports.port('workflows')?.()`). */
  ports: WorkPortSlot;
  model: ScriptedModel;
  /** The supervisor's events. */
  events: Array<Record<string, unknown>>;
  /** The workers' own events, which reach the supervisor's logger from their stderr (`comp: 'worker'`). */
  workerEvents: Array<Record<string, unknown>>;
  named(name: string): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** A config file's text (written to the state directory and compiled before env and flags). */
  yaml?: string;
  /** More files to write there first (instruction files), by name. */
  files?: Record<string, string>;
  /** Reuse this state directory (a restart). */
  dir?: string;
  /** Give the supervisor an A2A task backend (tasks follow their turns). */
  tasks?: boolean;
  /** Start this program as the worker (a double) instead of the real one. */
  workerEntry?: WorkerEntry;
  /** Wraps the opened store (a store that fails on cue). */
  wrapStore?: (store: Store) => Store;
  /** Start the registered producers (default true); false: a bare supervisor, as `new Supervisor` embeds it. */
  producers?: boolean;
  /** Runs after the producers start, before the restore. */
  beforeRestore?: (sup: Supervisor) => void;
  /** How long the supervisor's inbox leases last (a short one instead of the default). */
  inboxLeaseMs?: number;
  /** Wire the A2A start registry (as startRuntime does): the task backend hands new messages to waiting steps. */
  a2aStarts?: boolean;
}

/** The supervisor over a fresh store; with MCP servers configured it also gets the tool surface. */
export async function startRig(
  playbook: Playbook,
  env: Record<string, string> = {},
  opts: RigOptions = {},
): Promise<Rig> {
  const model = await startScriptedModel(playbook);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'agentd-int-'));
  if (opts.yaml !== undefined) writeFileSync(join(dir, 'agent.yaml'), opts.yaml);
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), text);
  let config: ReturnType<typeof compileConfig>;
  try {
    config = compileConfig({
      files: opts.yaml === undefined ? [] : ['agent.yaml'],
      env: { AGENTD_STATE_DIR: dir, ...env },
      flags: { intelligence: model.url, model: 'test-model' },
      cwd: dir,
      workflows: loadWorkflow,
    });
  } catch (err) {
    // An open model server would keep the test file's process alive: the suite would hang instead of failing.
    await model.close();
    throw err;
  }
  const opened = openStore(config.store);
  const store = opts.wrapStore ? opts.wrapStore(opened) : opened;
  const events: Array<Record<string, unknown>> = [];
  const workerEvents: Array<Record<string, unknown>> = [];
  const log = createLogger({
    level: 'debug',
    write: (line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      (event.comp === 'worker' ? workerEvents : events).push(event);
    },
  });
  const hasMcp = Object.keys(config.mcp.servers).length > 0;
  const tools = hasMcp ? await ToolSurface.start({ config, log, baseEnv: process.env }) : undefined;
  const slot = opts.tasks ? new TaskHooksSlot() : undefined;
  const ports = new WorkPortSlot();
  const sup = new Supervisor({
    config,
    store,
    log,
    ports,
    ...(tools ? { tools } : {}),
    ...(slot ? { tasks: slot } : {}),
    ...(opts.workerEntry ? { workerEntry: opts.workerEntry } : {}),
    ...(opts.inboxLeaseMs ? { inboxLeaseMs: opts.inboxLeaseMs } : {}),
  });
  const accept = (input: AcceptInput) => Promise.resolve(sup.accept(input));
  const a2aStarts = opts.a2aStarts ? new A2aStarts() : undefined;
  const starts = a2aStarts ? { starts: a2aStarts } : {};
  const backend =
    slot && new TaskBackend({ store, log, now: Date.now, drain: () => {}, supervisor: sup, accept, ...starts });
  if (backend) slot?.bind(backend);
  // The registered producers (message.send, side tasks, goals, wake notes), started before the restore as
  // startRuntime starts them; the A2A listener and the startup prompt stay off without their config.
  const registered = opts.producers === false ? [] : PRODUCERS;
  const producers = new ProducerRegistry(registered.flatMap((make) => make(config) ?? []));
  let markRestored: () => void = () => {};
  const restored = new Promise<void>((resolve) => {
    markRestored = resolve;
  });
  const ctx: ProducerContext = {
    ...{ config, accept, clock: Date.now, store, log, supervisor: sup, tasks: slot ?? new TaskHooksSlot() },
    ...{ requestStop: () => {}, turns: sup.steering.feed, ports, restored },
    ...(tools ? { mcp: tools } : {}),
    ...(a2aStarts ? { a2aStarts } : {}),
    reload: () => ({ result: 'invalid', generation: 1, error: 'reload: the test harness has no config sources' }),
  };
  await producers.start(ctx);
  opts.beforeRestore?.(sup);
  await sup.restore();
  markRestored();
  return {
    dir,
    sup,
    ...(backend ? { backend } : {}),
    ...(a2aStarts ? { a2aStarts } : {}),
    store,
    ports,
    model,
    events,
    workerEvents,
    named: (name) => events.filter((e) => e.event === name),
    close: async () => {
      await sup.drain(5_000);
      await producers.stop(ctx);
      await tools?.close();
      await store.close();
      await model.close();
    },
  };
}

/** Accepts `text` into conversation `ctx` (as the operator) and waits, at most 30 s, for the turn's outcome. */
export async function answer(rig: Rig, ctx: string, text: string): Promise<InboxOutcome> {
  const ev = (await rig.sup.accept({ context_id: ctx, text, principal: 'operator' })).record;
  return within(rig.sup.outcomeOf(ev.id), 30_000, `the turn in ${ctx}`);
}
