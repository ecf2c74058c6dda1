// Arms the long-lived start nodes of the armed definitions (producers reference §3.2-3.7): each `schedule` on the
// schedule runner and each `webhook` on the webhook routes, with the workflow desk as their FireTarget; `loop`s on
// LoopStarts; `event`s fire from here when a run ends. Definitions created, changed or deleted at run time are
// re-armed at once (§5 item 14).
import type { StepDef, WorkflowDef, WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { CommittedTurn } from '../steering/turnFeed.js';
import type { WorkflowsPort } from '../store/store.js';
import type { McpResources } from '../tools/mcp/mcpResources.js';
import type { A2aStarts, A2aStartTarget } from '../triggers/a2aStarts.js';
import { FIRED_KEY_PRUNE_EVERY_MS, planFiredKeyPrune } from '../triggers/firedKeys.js';
import type { FireResult, FireTarget } from '../triggers/fireTarget.js';
import type { ScheduleRunner } from '../triggers/scheduleRunner.js';
import { type PressureNow, shedCause } from '../triggers/shedPolicy.js';
import type { TimerService } from '../triggers/timerService.js';
import type { TriggerMetrics } from '../triggers/triggerMetrics.js';
import type { WebhookRoutes } from '../triggers/webhooks.js';
import { LoopStarts } from './loopStarts.js';
import { celHolds, principalOf, RUN_EVENTS, routeOf, type StartEvent, scheduleOf } from './startFields.js';
import { SubscribeStarts } from './subscribeStarts.js';
import type { WorkflowDesk } from './workflowDesk.js';

export interface StartTriggerDeps {
  desk: WorkflowDesk;
  schedules?: ScheduleRunner;
  webhooks?: WebhookRoutes;
  /** Where `a2a` starts are registered for the A2A task backend. */
  a2aStarts?: A2aStarts;
  log: Logger;
  clock(): number;
  /** Resolves `{{secret:NAME}}` in a webhook's auth values. */
  secret(text: string): string;
  /** Counts loop, event and signal firings (schedules and webhooks count their own). */
  metrics?: TriggerMetrics;
  /** The pressure gate's reading: schedule, event and signal firings are shed under it. */
  pressure?(): PressureNow;
  /** The supervisor's durable timers: a loop's next iteration is a row there. */
  timers?: TimerService;
  /** A configured MCP server's resources (subscribe starts). */
  resources?(server: string): Promise<McpResources>;
  /** The stored runs: those the triggers started are pruned past the fired-key retention (firedKeys.ts). */
  runs?: Pick<WorkflowsPort, 'listRuns' | 'deleteRuns'>;
}

/** Runs a firing started, by its idempotency key, kept for `respond: sync` (bounded: the oldest are forgotten). */
const KEPT_KEYS = 1_024;

/**
 * The desk as the target of one start node: a firing starts a run keyed by the firing's idempotency key, so a
 * replayed firing finds the run it made instead of making a second one (reference §5 item 16).
 */
export function deskTarget(
  desk: WorkflowDesk,
  at: { workflow: string; node: string; principal: string | null; shed?: () => boolean; serial?: boolean },
  log: Logger,
): FireTarget {
  const { workflow, node } = at;
  const runs = new Map<string, string>();
  const mine = (): Readonly<WorkflowRun>[] =>
    desk.engine.live().filter((r) => r.workflow === workflow && r.start.node === node);
  return {
    async fire(_trigger, _occurrence, key, payload, caller) {
      // The node's principal, else nobody: the operator's reach (reference §3.9); a known caller acts for itself.
      const principal = caller === undefined ? at.principal : caller;
      if (at.shed?.()) return;
      const serial = at.serial === true ? { serial: true } : {};
      const got = await desk.start({
        workflow,
        node,
        startKey: key,
        payload,
        principal,
        conversation: null,
        ...serial,
      });
      if (!got.ok) {
        if (got.queued) log.info('start.queued', { workflow, node, start_key: key });
        else log.info('start.refused', { workflow, node, reason: got.error });
        return;
      }
      runs.set(key, got.run.id);
      if (runs.size > KEPT_KEYS) runs.delete(runs.keys().next().value as string);
    },
    async outcome(key): Promise<FireResult> {
      const id = runs.get(key);
      if (id === undefined) return { status: 'gone' };
      const run = await desk.wait(id, 2 ** 31 - 1);
      return run === null ? { status: 'gone' } : { status: run.status, output: run.output, error: run.error };
    },
    live: () => mine().length > 0,
    cancel: () => {
      for (const run of mine())
        void desk.engine.cancel(run.id, 'cancelled by a newer firing (overlap cancel_previous)');
    },
  };
}

/** The desk as the target of an `a2a` start: the run acts for the caller, in its conversation (reference §3.9). */
function a2aTarget(desk: WorkflowDesk, workflow: string, node: string): A2aStartTarget {
  return {
    async start(startKey, payload, principal, conversation) {
      const got = await desk.start({ workflow, node, startKey, payload, principal, conversation });
      if (got.ok) return { ok: true, run: got.run.id };
      return got.queued ? { ok: false, error: got.error, queued: true } : { ok: false, error: got.error };
    },
    async outcome(id): Promise<FireResult> {
      const run = await desk.wait(id, 2 ** 31 - 1);
      return run === null ? { status: 'gone' } : { status: run.status, output: run.output, error: run.error };
    },
  };
}

interface ArmedStarts {
  schedules: string[];
  paths: string[];
  events: StepDef[];
  signals: StepDef[];
  a2a: string[];
}

/** What an event start fires on: its key's last segment, the workflow it must not retrigger, what `start.fired` names. */
interface EventSource {
  id: string;
  skip: string | null;
  fields: Record<string, string>;
}

export class StartTriggers {
  /** Armed trigger ids per workflow, with the webhook paths to unregister. */
  readonly #armed = new Map<string, ArmedStarts>();
  readonly #loops: LoopStarts;
  readonly #subscriptions: SubscribeStarts;
  #prunedAt: number | null = null;

  constructor(private readonly deps: StartTriggerDeps) {
    this.#loops = new LoopStarts(deps);
    const shed = (workflow: string, step: StepDef) => this.#gate(workflow, step, 'subscribe')();
    this.#subscriptions = new SubscribeStarts({ ...deps, resources: deps.resources?.bind(deps), shed });
    deps.a2aStarts?.onCancel((run, reason) => deps.desk.engine.cancel(run, reason));
    deps.a2aStarts?.onWithdraw((which, reason) => deps.desk.withdraw(which, reason));
  }

  /** A run ended: its loop decides its next iteration, and `event` starts of other workflows may fire. */
  runEnded(run: Readonly<WorkflowRun>): void {
    this.#loops.runEnded(run);
    this.#subscriptions.runEnded(run);
    this.deps.a2aStarts?.ended(run.startKey, { status: run.status, output: run.output, error: run.error });
    void this.pruneFiredKeys();
    const event = run.status === 'completed' ? 'workflow.finished' : 'workflow.failed';
    const payload = { run: run.id, workflow: run.workflow, status: run.status };
    // A workflow's own runs never fire its event starts: no endless self-retrigger (reference §5 item 20).
    this.#fireEvents(event, payload, { id: run.id, skip: run.workflow, fields: { run: run.id } });
  }

  /**
   * A turn's fold committed: `turn.finished` (completed) or `turn.failed` starts fire. The turns of workflow steps
   * and run-end wake notes are left out: a run's own turns never start runs (the workflow events cover them).
   */
  turnEnded(turn: CommittedTurn): void {
    const { event: inbox, outcome } = turn;
    if (inbox.kind === 'workflow_step' || inbox.kind === 'wake_note') return;
    const event = outcome.status === 'completed' ? 'turn.finished' : 'turn.failed';
    const payload = {
      conversation: inbox.payload.context_id,
      inbox_event: inbox.id,
      kind: inbox.kind,
      principal: inbox.principal,
      status: outcome.status,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
    this.#fireEvents(event, payload, { id: `turn:${inbox.id}`, skip: null, fields: { inbox_event: inbox.id } });
  }

  /** Fires the armed `event` starts `event` takes whose filter holds, keyed by what happened (`source.id`). */
  #fireEvents(event: StartEvent, payload: Record<string, unknown>, source: EventSource): void {
    for (const [workflow, { events }] of this.#armed) {
      if (workflow === source.skip) continue;
      for (const step of events) {
        if (RUN_EVENTS[String(step.fields['on'])] !== event) continue;
        const filter = step.fields['filter'];
        if (typeof filter === 'string' && !celHolds(filter, { payload })) continue;
        const at = {
          workflow,
          node: step.id,
          principal: principalOf(step.fields),
          shed: this.#gate(workflow, step, 'event'),
        };
        const target = deskTarget(this.deps.desk, at, this.deps.log);
        const key = `event/${workflow}.${step.id}/${source.id}`;
        const trigger = `${workflow}.${step.id}`;
        target.fire(trigger, this.deps.clock(), key, { event, payload }).then(
          () => {
            this.deps.log.info('start.fired', { trigger, kind: 'event', on: event, ...source.fields });
            this.deps.metrics?.fired('event');
          },
          (err: unknown) => this.deps.log.error('start.arm.fail', { trigger, err: describeError(err) }),
        );
      }
    }
  }

  /** A start queued behind concurrency was refused when its turn came: an `a2a` caller's task ends `rejected`. */
  startRefused(startKey: string, error: string): void {
    this.deps.a2aStarts?.ended(startKey, { status: 'refused', error });
  }

  /**
   * Fires every armed signal start named `name` whose filter passes (reference §3.7); each run is keyed by the
   * signal's `key`, so a replayed signal starts nothing new. Resolves with the runs started.
   */
  async signal(name: string, payload: unknown, key: string): Promise<number> {
    let delivered = 0;
    for (const [workflow, { signals }] of this.#armed)
      for (const step of signals) {
        if (step.fields['name'] !== name) continue;
        const filter = step.fields['filter'];
        if (typeof filter === 'string' && !celHolds(filter, { payload })) continue;
        if (this.#gate(workflow, step, 'signal')()) continue;
        const got = await this.deps.desk.start({
          workflow,
          node: step.id,
          startKey: `signal/${workflow}.${step.id}/${key}`,
          payload: { signal: name, payload },
          principal: principalOf(step.fields),
          conversation: null,
        });
        this.deps.log.info('start.fired', { trigger: `${workflow}.${step.id}`, kind: 'signal' });
        this.deps.metrics?.fired('signal');
        if (got.ok && got.created) delivered++;
      }
    return delivered;
  }

  /** Arms every armed definition's long-lived starts, then prunes old fired keys. */
  async armAll(): Promise<void> {
    const subscribes = new Set<string>();
    for (const def of this.deps.desk.definitions().values()) {
      await this.arm(def.name, def);
      for (const s of Object.values(def.steps)) if (s.kind === 'subscribe') subscribes.add(`${def.name}.${s.id}`);
    }
    // Rows of a subscribe node deleted while the daemon was down would be kept forever.
    await this.#subscriptions.forgetAllBut(subscribes);
    await this.pruneFiredKeys();
  }

  /**
   * Deletes the finished runs of recurring triggers past the fired-key retention, with their start keys (issue 17
   * item 5), at most hourly: at start, then on a run's end. Never rejects.
   */
  async pruneFiredKeys(): Promise<void> {
    const now = this.deps.clock();
    if (!this.deps.runs || (this.#prunedAt !== null && now - this.#prunedAt < FIRED_KEY_PRUNE_EVERY_MS)) return;
    this.#prunedAt = now;
    try {
      const ids = planFiredKeyPrune(await this.deps.runs.listRuns({}), now);
      const removed = ids.length === 0 ? 0 : await this.deps.runs.deleteRuns(ids);
      const doneKeys = (await this.deps.schedules?.pruneDone(now)) ?? 0;
      if (removed > 0 || doneKeys > 0) this.deps.log.info('start.keys_pruned', { removed, done_keys: doneKeys });
    } catch (err) {
      this.deps.log.warn('start.keys_prune.fail', { err: describeError(err) });
    }
  }

  /** Disarms what `name` had armed, then arms `def` (null: deleted). */
  async arm(name: string, def: WorkflowDef | null): Promise<void> {
    const keep = new Set(
      def?.armed
        ? Object.values(def.steps).flatMap((s) =>
            s.kind === 'schedule' || s.kind === 'subscribe' ? [`${name}.${s.id}`] : [],
          )
        : [],
    );
    // A schedule still there keeps its stored next occurrence when unchanged (the runner compares its fields); a
    // subscribe node still there keeps its stored window, held firing and ring.
    await this.#disarm(name, keep);
    if (def === null || !def.armed) return;
    const armed: ArmedStarts = { schedules: [], paths: [], events: [], signals: [], a2a: [] };
    this.#armed.set(name, armed);
    for (const step of Object.values(def.steps)) {
      if (step.kind === 'event') armed.events.push(step);
      if (step.kind === 'signal') armed.signals.push(step);
      const principal = principalOf(step.fields);
      // Webhooks shed before they answer (429, webhooks.ts); loops fire only after their own run ended.
      const shed = step.kind === 'schedule' ? this.#gate(name, step, 'schedule') : undefined;
      // A schedule's overlap `queue` (the default): a firing waits while the node's last run is live.
      const serial = step.kind === 'schedule' && (step.fields['overlap'] ?? 'queue') === 'queue';
      const at = { workflow: name, node: step.id, principal, ...(shed ? { shed } : {}), ...(serial ? { serial } : {}) };
      const target = () => deskTarget(this.deps.desk, at, this.deps.log);
      try {
        if (step.kind === 'schedule' && this.deps.schedules) {
          const id = `${name}.${step.id}`;
          await this.deps.schedules.add({ id, schedule: scheduleOf(step.fields), principal }, target());
          armed.schedules.push(id);
        } else if (step.kind === 'webhook' && this.deps.webhooks) {
          const route = { ...routeOf(name, step.id, step.fields, this.deps.secret), priority: def.priority };
          this.deps.webhooks.register(route, target());
          armed.paths.push(route.path);
        } else if (step.kind === 'loop') await this.#loops.arm(name, step);
        else if (step.kind === 'subscribe') await this.#subscriptions.arm(name, step);
        else if (step.kind === 'a2a' && this.deps.a2aStarts) {
          const id = `${name}.${step.id}`;
          const command = typeof step.fields['command'] === 'string' ? step.fields['command'] : null;
          const roles = Array.isArray(step.fields['roles']) ? step.fields['roles'].map(String) : [];
          const spec = { id, workflow: name, node: step.id, command, roles };
          this.deps.a2aStarts.register(spec, a2aTarget(this.deps.desk, name, step.id));
          armed.a2a.push(id);
        }
      } catch (err) {
        this.deps.log.error('start.arm.fail', { workflow: name, node: step.id, err: describeError(err) });
      }
    }
  }

  /** True (and `start.shed` logged) when a firing of `step` is shed now (reference §3.2 step 1). */
  #gate(workflow: string, step: StepDef, kind: string): () => boolean {
    return () => {
      const priority = this.deps.desk.definitions().get(workflow)?.priority ?? 'normal';
      const cause = this.deps.pressure ? shedCause(this.deps.pressure(), priority) : null;
      if (cause !== null) this.deps.log.warn('start.shed', { workflow, node: step.id, kind, cause });
      return cause !== null;
    };
  }

  async #disarm(name: string, keep: ReadonlySet<string>): Promise<void> {
    const armed = this.#armed.get(name);
    this.#armed.delete(name);
    for (const path of armed?.paths ?? []) this.deps.webhooks?.unregister(path);
    for (const id of armed?.a2a ?? []) this.deps.a2aStarts?.unregister(id);
    for (const id of armed?.schedules ?? []) if (!keep.has(id)) await this.deps.schedules?.remove(id);
    for (const id of this.#loops.idsOf(name)) this.#loops.disarm(id);
    for (const id of this.#subscriptions.idsOf(name)) this.#subscriptions.disarm(id, !keep.has(id));
  }

  /** Fires nothing more in this life (a drain): routes unregistered, loops disarmed, schedules detached (their
   * stored timers stay for the next life). */
  stop(): void {
    for (const { paths, schedules, a2a } of this.#armed.values()) {
      for (const path of paths) this.deps.webhooks?.unregister(path);
      for (const id of a2a) this.deps.a2aStarts?.unregister(id);
      for (const id of schedules) this.deps.schedules?.detach(id);
    }
    this.#armed.clear();
    this.#loops.stop();
    this.#subscriptions.stop();
  }
}
