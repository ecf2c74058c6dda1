// Workflows as a producer (producers reference §0.1, §2.9, §2.14): opens the desk over the store (restoring live
// runs), fires `once` starts, offers the desk to the workflow.* tools through the `workflows` work port, and leaves
// the wake note of a finished run in the conversation that started it.
import { lookup } from 'node:dns/promises';
import { checkSearchSteps } from '../config/searchKeys.js';
import type { AgentConfig } from '../config/types.js';
import { runtimeSecretProblems, workflowSecrets } from '../config/workflowSecrets.js';
import { SkillBook } from '../context/skillBook.js';
import { type LiveRunView, TERMINAL_RUN, type WorkflowDef, type WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import { chargedTokens } from '../protocol/usage.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import type { McpCaller, StepPorts } from './nodeKind.js';
import type { RunCounters } from './runMetrics.js';
import { liveRunViews, runWatch } from './runWatch.js';
import { timerStartQueue } from './startQueue.js';
import { StartTriggers } from './startTriggers.js';
import { stepCallbacks } from './stepCallbacks.js';
import { askPersons } from './stepHuman.js';
import { StepPeers } from './stepPeers.js';
import { stepSinks } from './stepSinks.js';
import { awaitSubagents, endRunSubagents, stepSubagents } from './stepSubagents.js';
import { stepTools } from './stepTools.js';
import { turnPorts } from './turnPorts.js';
import { WorkflowDesk } from './workflowDesk.js';

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** The workflow desk: definitions, starts, runs (the workflow.* tools). */
    workflows(): WorkflowDesk;
    /** The live runs as `status` shows them, a principal's own only (every run without one). */
    live_runs(principal?: string): LiveRunView[];
    /** Load problems of a definition against the config (a `search.query` step with no search provider). */
    workflow_reach(def: WorkflowDef): string[];
  }
}

const NOTE_CHARS = 400;

/**
 * The note a finished run leaves (reference §2.14), or null: as for a message.send run (steering/wakeNotes.ts), a
 * failure is noted while `agent.wake_on` holds `workflow_failed`; a completion when `wake_on` holds
 * `workflow_finished` or `on_workflow_finished` is `note`/`think` (think acts as note here).
 */
export function runNote(
  run: Readonly<WorkflowRun>,
  agent: Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'>,
): string | null {
  const completed = run.status === 'completed';
  const wanted = completed
    ? agent.wake_on.includes('workflow_finished') || agent.on_workflow_finished !== 'ignore'
    : agent.wake_on.includes('workflow_failed');
  if (!wanted) return null;
  const detail = completed ? (JSON.stringify(run.output) ?? 'null') : (run.error ?? run.status);
  const chars = [...detail];
  const cut = chars.length > NOTE_CHARS ? `${chars.slice(0, NOTE_CHARS).join('')}…` : detail;
  return `workflow ${run.workflow} run ${run.id} ${run.status}: ${cut}`;
}

/** The `mcp.tool` kind's port over the supervisor's connections. */
function mcpCaller(tools: NonNullable<ProducerContext['mcp']>): McpCaller {
  return (server, tool, args, call) => tools.callRoute({ server, wire: tool }, args, call);
}

/** The knowledge kinds' port: the route the turn's knowledge.search uses (reference §7), called as the supervisor. */
function knowledgeCaller(tools: NonNullable<ProducerContext['mcp']>): NonNullable<StepPorts['knowledge']> {
  return async (tool, args, call) => {
    const route = tools.knowledgeRoute(tool);
    return route === null ? null : tools.callRoute(route, args, { meta: {}, ...call });
  };
}

/** Skill bodies for a `subagent` step: read as a turn's are (SkillBook: first source listing it, timeout, cap). */
function skillReader(
  ctx: ProducerContext,
  tools: NonNullable<ProducerContext['mcp']>,
): NonNullable<StepPorts['skills']> {
  return async (names) => {
    const book = new SkillBook({ config: ctx.config, log: ctx.log, tools, setSkills: () => undefined });
    const bodies: { name: string; body: string }[] = [];
    const unknown: string[] = [];
    for (const name of names)
      if (book.has(name)) bodies.push({ name, body: await book.body(name) });
      else unknown.push(name);
    return { bodies, unknown };
  };
}

const hostAddresses = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true })).map((a) => a.address);

/** What the steps of runs reach outside the engine: memory, the network, MCP tools, turns, subagents, persons. */
function deskPorts(ctx: ProducerContext): StepPorts {
  const secret = (text: string): string => workflowSecrets(ctx.config.workflows)(text);
  const callbacks = stepCallbacks(ctx, secret);
  return {
    memory: ctx.store.memory,
    fetch,
    lookup: hostAddresses,
    instance: ctx.config.agent.name,
    fanOut: ctx.config.limits.workflow.fan_out,
    inlineMaxBytes: ctx.config.limits.inline_max_bytes,
    ...(ctx.mcp
      ? { mcp: mcpCaller(ctx.mcp), knowledge: knowledgeCaller(ctx.mcp), skills: skillReader(ctx, ctx.mcp) }
      : {}),
    ...turnPorts(ctx),
    tool: stepTools(ctx),
    subagent: stepSubagents(ctx),
    awaitSubagent: awaitSubagents(ctx),
    askPerson: askPersons(ctx),
    emit: stepSinks(ctx),
    peers: new StepPeers({ peers: () => ctx.config.a2a.peers, lookup: hostAddresses, log: ctx.log }),
    ...(ctx.mcp ? { resources: ctx.mcp.resources.bind(ctx.mcp) } : {}),
    ...(callbacks ? { callbacks } : {}),
    secret,
    searchProvider: () => {
      const { url, key } = ctx.config.search.provider;
      return url === null ? null : { url, key };
    },
  };
}

export class WorkflowProducer implements Producer {
  readonly name = 'workflows';
  #desk: WorkflowDesk | null = null;
  #ctx: ProducerContext | null = null;
  #starts: StartTriggers | null = null;
  #unplug: Array<() => void> = [];
  #settled: Promise<readonly string[]> = Promise.resolve([]);
  readonly #since: number;

  /**
   * `counters`: the run metrics registered already, `since`: when this life began (lazyWorkflows.ts starts the
   * producer late); without them the producer registers its own and began now.
   */
  constructor(
    readonly counters?: RunCounters,
    since = Date.now(),
  ) {
    this.#since = since;
  }

  /** The desk once started (tests and embedders reach definitions and runs through it). */
  get desk(): WorkflowDesk | null {
    return this.#desk;
  }

  start(ctx: ProducerContext): void {
    this.#ctx = ctx;
    const desk: WorkflowDesk = new WorkflowDesk({
      store: ctx.store,
      log: ctx.log,
      clock: ctx.clock,
      ports: deskPorts(ctx),
      configured: ctx.config.workflows,
      watch: runWatch({ ...ctx, counters: this.counters }, () => this.#desk?.engine.live().length ?? 0),
      ...(ctx.timers ? { queue: timerStartQueue(ctx.timers), timers: ctx.timers } : {}),
      ...(ctx.killPoint ? { killPoint: ctx.killPoint } : {}),
      logContent: ctx.config.observability.log_content,
      onRunEnded: (run) => {
        this.#noteEnd(ctx, run);
        endRunSubagents(ctx, run);
        starts.runEnded(run);
      },
      onDefined: (name, def): Promise<void> => starts.arm(name, def),
      onStartRefused: (key, error) => starts.startRefused(key, error),
      onQueuedStarted: (key, run) => ctx.a2aStarts?.started(key, run),
      onSignal: (name, payload, key): Promise<number> => starts.signal(name, payload, key),
    });
    const starts = new StartTriggers({
      desk,
      log: ctx.log,
      clock: ctx.clock,
      // The config layer resolves `{{secret:…}}` (house rule 4); read per arming, so a reload's list applies.
      secret: (text) => workflowSecrets(ctx.config.workflows)(text),
      ...(ctx.schedules ? { schedules: ctx.schedules } : {}),
      ...(ctx.webhooks ? { webhooks: ctx.webhooks } : {}),
      ...(ctx.a2aStarts ? { a2aStarts: ctx.a2aStarts } : {}),
      ...(ctx.triggerMetrics ? { metrics: ctx.triggerMetrics } : {}),
      ...(ctx.pressure ? { pressure: ctx.pressure } : {}),
      ...(ctx.timers ? { timers: ctx.timers } : {}),
      ...(ctx.mcp ? { resources: ctx.mcp.resources.bind(ctx.mcp) } : {}),
      runs: ctx.store.workflows,
    });
    this.#desk = desk;
    this.#starts = starts;
    // A new A2A message reaches the steps waiting on its conversation before any start or turn (reference §3.7).
    ctx.a2aStarts?.onMessage((msg) => desk.takeMessage(msg));
    // The supervisor restores after every producer started: the desk opens once conversations are loaded.
    const opened = ctx.restored.then(() => desk.open());
    this.#unplug = [
      // Turn lifecycle `event` starts: each committed fold (reference §3.7).
      ctx.turns.onCommitted((turn) => void opened.then(() => starts.turnEnded(turn))),
      ctx.ports.plug('workflows', () => desk),
      ctx.ports.plug('live_runs', (principal) => liveRunViews(desk.engine.live(), principal)),
      ctx.ports.plug('workflow_reach', (def) => [
        ...checkSearchSteps([def], ctx.config.search.provider),
        ...runtimeSecretProblems(ctx.config.workflows, def),
      ]),
      // A respawned step child can spend before its run is live again: the charge waits for the desk to open.
      ctx.ports.plug('run_spent', (run, usage) => {
        void opened
          .then(() => desk.engine.mail.charge(run, chargedTokens(usage)))
          .catch((err: unknown) => ctx.log.warn('run.save.fail', { run, error: describeError(err) }));
      }),
    ];
    const armed = opened.then(() => starts.armAll());
    ctx.a2aStarts?.armedWhen(armed);
    this.#settled = armed
      .then(() => desk.fireOnce())
      // This life's `once` runs decide a job's exit code (reference §2.10): one finished in an earlier life does not;
      // one this life restored and finished (even before the `once` starts fired) does.
      .then((runs) => runs.filter((r) => this.#ofThisLife(r)).map((r) => r.id))
      .catch((err: unknown) => {
        ctx.log.error('producer.failed', { producer: this.name, err: describeError(err) });
        return [];
      });
  }

  #ofThisLife(run: Readonly<WorkflowRun>): boolean {
    return !TERMINAL_RUN.has(run.status) || run.created >= this.#since || (run.finished ?? 0) >= this.#since;
  }

  /** Resolves, once the desk opened and the `once` starts fired, with the ids of this life's `once` runs. */
  get settled(): Promise<readonly string[]> {
    return this.#settled;
  }

  /** True while a run is live or a start waits behind a concurrency limit (a job is not idle then). */
  busy(): boolean {
    return this.#desk !== null && (this.#desk.engine.live().length > 0 || this.#desk.queuedStarts > 0);
  }

  #noteEnd(ctx: ProducerContext, run: Readonly<WorkflowRun>): void {
    if (run.conversation === null) return;
    const text = runNote(run, ctx.config.agent);
    if (text === null) return;
    try {
      ctx.supervisor.steering.note(run.conversation, text, run.principal);
    } catch (err) {
      ctx.log.error('inbox.accept.fail', { ctx: run.conversation, run: run.id, err: describeError(err) });
    }
  }

  /** A drain starts: triggers fire no new run (running ones finish; a schedule's next occurrence stays stored). */
  stopIntake(): void {
    this.#starts?.stop();
  }

  async stop(): Promise<void> {
    for (const unplug of this.#unplug.splice(0)) unplug();
    this.#ctx?.a2aStarts?.onMessage(null);
    this.#starts?.stop();
    await this.#desk?.stop();
  }
}
