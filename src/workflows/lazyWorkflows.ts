// Workflows as a producer, without the engine until the daemon has workflows (issue 14: idle memory). The engine
// (the desk, its node kinds, triggers and tools: about a fifth of the daemon's own code) loads at start when the
// config defines a workflow or the store holds a definition, a live run or a queued start (a restored run resumes
// at start as before), else at the first workflow.* tool call (lazyTools.ts asks through `workflows_open`). Until
// then there is nothing it would do: no definition means no start to arm, no run to restore, watch or note, and
// `status` shows no live run. The run metrics are registered at start either way (runMetrics.ts).
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { type RunCounters, runMetrics } from './runMetrics.js';
import { QUEUED_START_KIND } from './startQueue.js';
import { OWNER_PREFIX } from './subscribeRows.js';
import type { WorkflowDesk } from './workflowDesk.js';
import type { WorkflowProducer } from './workflowProducer.js';

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** Loads and starts the workflow engine unless it is already; resolves once its desk is plugged in. */
    workflows_open(): Promise<void>;
  }
}

/**
 * The engine is needed at start: a shared store (replicas), a configured or stored definition, a stored run (a live one resumes; finished
 * ones are pruned past the fired-key retention at start), a start queued or a subscribe start's rows kept by a past
 * life (rows of a node deleted meanwhile are forgotten at start).
 */
export async function workflowsAtStart(ctx: ProducerContext): Promise<boolean> {
  // A shared store (replicas): another replica's runs, created after this one started, are adopted here once their
  // owner dies only by a loaded engine's claims.
  if (ctx.config.workflows.length > 0 || ctx.store.fleet !== undefined) return true;
  const runs = ctx.store.workflows;
  if ((await runs.listDefinitions()).length > 0 || (await runs.listRuns({})).length > 0) return true;
  // The stored rows: the timer service loads them only once every producer started.
  const timers = await ctx.store.timers.list();
  return timers.some((t) => t.kind === QUEUED_START_KIND || t.owner.startsWith(OWNER_PREFIX));
}

/** Without the engine, what its start would still do: forget one-shot schedules' done keys past the retention. */
async function pruneDoneKeys(ctx: ProducerContext): Promise<void> {
  try {
    const doneKeys = (await ctx.schedules?.pruneDone(ctx.clock())) ?? 0;
    if (doneKeys > 0) ctx.log.info('start.keys_pruned', { removed: 0, done_keys: doneKeys });
  } catch (err) {
    ctx.log.warn('start.keys_prune.fail', { err: describeError(err) });
  }
}

export class LazyWorkflows implements Producer {
  readonly name = 'workflows';
  #inner: WorkflowProducer | null = null;
  #loading: Promise<WorkflowProducer> | null = null;
  #counters: RunCounters | undefined;
  #unplug: Array<() => void> = [];
  #intakeStopped = false;
  #ctx: ProducerContext | null = null;
  readonly #since = Date.now();

  /** The desk once the engine started (tests and embedders reach definitions and runs through it). */
  get desk(): WorkflowDesk | null {
    return this.#inner?.desk ?? null;
  }

  /** Whether the engine is loaded. */
  get loaded(): boolean {
    return this.#inner !== null;
  }

  /** As WorkflowProducer's: this life's `once` runs, once they fired (none while the engine is not loaded). */
  get settled(): Promise<readonly string[]> {
    return this.#inner?.settled ?? Promise.resolve([]);
  }

  /** Loads and starts the engine now, unless it is (an embedder or test that defines workflows on the desk). */
  async open(): Promise<WorkflowDesk | null> {
    if (this.#ctx !== null) await this.#load(this.#ctx);
    return this.desk;
  }

  busy(): boolean {
    return this.#inner?.busy() ?? false;
  }

  async start(ctx: ProducerContext): Promise<void> {
    this.#ctx = ctx;
    this.#counters = runMetrics(ctx.metrics, () => this.desk?.engine.live().length ?? 0);
    if (await workflowsAtStart(ctx)) {
      await this.#load(ctx);
      return;
    }
    // A failed start rejects `restored`: nothing to prune then, and the rejection is the start's to report.
    ctx.restored.then(
      () => (this.#inner === null ? pruneDoneKeys(ctx) : undefined),
      () => {},
    );
    this.#unplug = [
      ctx.ports.plug('workflows_open', async () => void (await this.#load(ctx))),
      // No engine, no live run; the engine plugs its own view in when it starts.
      ctx.ports.plug('live_runs', () => []),
    ];
  }

  #load(ctx: ProducerContext): Promise<WorkflowProducer> {
    this.#loading ??= import('./workflowProducer.js').then(({ WorkflowProducer }) => {
      for (const unplug of this.#unplug.splice(0)) unplug();
      const inner = new WorkflowProducer(this.#counters, this.#since);
      inner.start(ctx);
      if (this.#intakeStopped) inner.stopIntake();
      this.#inner = inner;
      return inner;
    });
    return this.#loading;
  }

  stopIntake(): void {
    this.#intakeStopped = true;
    this.#inner?.stopIntake();
  }

  async stop(): Promise<void> {
    for (const unplug of this.#unplug.splice(0)) unplug();
    await this.#loading?.catch(() => undefined);
    await this.#inner?.stop();
  }
}

/** Registered in runtime/producerList.ts: always on (no definitions ⇒ it loads the engine at workflow.create). */
export function workflowProducer(): LazyWorkflows {
  return new LazyWorkflows();
}
