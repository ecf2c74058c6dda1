// Subscribe start nodes (producers reference §3.6): each armed node subscribes to its MCP resource on the
// supervisor's connection, and subscribes again when that connection is lost (the server restarted). An update is
// read (JSON when it parses, else text, null when the read fails), passed through `filter` (CEL over `{content}`),
// joins the `window` ring, and fires at once or, with `debounce_ms`, once per window with the newest content.
// A firing starts a run, is held behind this node's live run (`coalesce`) or is a signal to the workflow's live
// runs (`deliver: signal`). Windows, held firings and rings are timer-store rows (subscribeRows.ts): a restart
// keeps them. Armed when the definition is (at start, and at once for one created at run time).
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { McpResources } from '../tools/mcp/mcpResources.js';
import {
  planFiring,
  planUpdate,
  pushSample,
  type SubscribeOptions,
  subscribeOptions,
} from '../triggers/subscribePolicy.js';
import type { TimerService } from '../triggers/timerService.js';
import type { TriggerMetrics } from '../triggers/triggerMetrics.js';
import { resourceContent } from './kinds/mcpResourceKind.js';
import { celHolds, principalOf } from './startFields.js';
import { type HeldFiring, SubscribeRows } from './subscribeRows.js';
import type { WorkflowDesk } from './workflowDesk.js';

const SUBSCRIBE_TIMEOUT_MS = 10_000;
const READ_TIMEOUT_MS = 10_000;
/** Resubscribing after a lost connection waits this long, doubling up to the cap. */
const RESUBSCRIBE_FIRST_MS = 500;
const RESUBSCRIBE_MAX_MS = 30_000;

export interface SubscribeDeps {
  desk: WorkflowDesk;
  log: Logger;
  clock(): number;
  metrics?: TriggerMetrics | undefined;
  /** A configured MCP server's resources; rejects when there is none (the node is not armed). */
  resources?: ((server: string) => Promise<McpResources>) | undefined;
  /** True (logged) when a firing of `step` is shed under pressure now. */
  shed(workflow: string, step: StepDef): boolean;
  /** Where windows, held firings and rings are kept; without it they live in memory only. */
  timers?: TimerService | undefined;
}

interface Armed {
  id: string;
  workflow: string;
  step: StepDef;
  opts: SubscribeOptions;
  off: (() => void) | null;
  /** The open debounce window: its due time and the newest payload. */
  window: { due: number; payload: unknown; timer?: NodeJS.Timeout } | null;
  held: HeldFiring | undefined;
  ring: unknown[];
  retry: NodeJS.Timeout | null;
}

export class SubscribeStarts {
  readonly #armed = new Map<string, Armed>();
  readonly #rows: SubscribeRows | null;
  #seq = 0;

  constructor(private readonly deps: SubscribeDeps) {
    this.#rows = deps.timers ? new SubscribeRows(deps.timers, (id, due, p) => this.#windowClosed(id, due, p)) : null;
  }

  /** Subscribes the node `step` of `workflow` to its resource (`start.subscribe.armed|fail|no_server`). */
  async arm(workflow: string, step: StepDef): Promise<void> {
    const id = `${workflow}.${step.id}`;
    this.disarm(id);
    const opts = subscribeOptions(step.fields);
    const armed: Armed = { id, workflow, step, opts, off: null, window: null, held: undefined, ring: [], retry: null };
    this.#armed.set(id, armed);
    const stored = await this.#rows?.stored(id);
    if (stored) Object.assign(armed, { window: stored.window, held: stored.held, ring: stored.ring });
    const at = this.#where(armed);
    let resources: McpResources;
    try {
      if (!this.deps.resources) throw new DaemonError('config_invalid', 'this instance has no MCP servers');
      resources = await this.deps.resources(at.server);
    } catch (err) {
      this.deps.log.warn('start.subscribe.no_server', { ...at, err: describeError(err) });
      // Configured but not reachable yet (it starts after the daemon): tried again as after a lost connection.
      if (err instanceof DaemonError && err.code === 'config_invalid') this.#armed.delete(id);
      else this.#resubscribe(armed, RESUBSCRIBE_FIRST_MS);
      return;
    }
    try {
      await this.#subscribe(armed, resources, false);
    } catch (err) {
      this.deps.log.warn('start.subscribe.fail', { ...at, err: describeError(err) });
      // A refusal stays; a connection that went away (the server restarts) is tried again.
      if (err instanceof DaemonError && err.retryable) this.#resubscribe(armed, RESUBSCRIBE_FIRST_MS);
      else this.#armed.delete(id);
      return;
    }
    // A firing held by a previous life whose run is gone fires now.
    if (armed.held !== undefined && this.#mine(armed) === 0) await this.#releaseHeld(armed);
  }

  /**
   * Unsubscribes a node (its definition changed, was deleted or disarmed, or the daemon drains). `forget`: its
   * node is gone, so are its stored window, held firing and ring; else they stay for the next arming.
   */
  disarm(id: string, forget = false): void {
    const armed = this.#armed.get(id);
    if (armed) {
      this.#armed.delete(id);
      armed.off?.();
      if (armed.retry) clearTimeout(armed.retry);
      if (armed.window?.timer) clearTimeout(armed.window.timer);
    }
    if (forget) void this.#rows?.forget(id).catch((err: unknown) => this.#storeFailed(id, err));
  }

  /** Deletes the stored rows of subscribe nodes not in `live` (`workflow.node` ids), deleted while down. */
  async forgetAllBut(live: ReadonlySet<string>): Promise<void> {
    await this.#rows?.forgetAllBut(live).catch((err: unknown) => this.#storeFailed('*', err));
  }

  idsOf(workflow: string): string[] {
    return [...this.#armed.values()].filter((a) => a.workflow === workflow).map((a) => a.id);
  }

  stop(): void {
    for (const id of [...this.#armed.keys()]) this.disarm(id);
  }

  /** A run ended: a firing `coalesce` held behind this node's run fires now. */
  runEnded(run: Readonly<WorkflowRun>): void {
    for (const armed of this.#armed.values())
      if (armed.workflow === run.workflow && run.start.node === armed.step.id && armed.held !== undefined)
        void this.#releaseHeld(armed);
  }

  #where(armed: Armed) {
    const { fields } = armed.step;
    return {
      workflow: armed.workflow,
      node: armed.step.id,
      server: String(fields['server']),
      uri: String(fields['uri']),
    };
  }

  /** Subscribes on `resources`; once subscribed, a lost connection subscribes again. Throws when refused. */
  async #subscribe(armed: Armed, resources: McpResources, again: boolean): Promise<void> {
    const at = this.#where(armed);
    const off = await resources.subscribe(at.uri, () => void this.#updated(armed, resources), SUBSCRIBE_TIMEOUT_MS);
    if (this.#armed.get(armed.id) !== armed) return off(); // disarmed while subscribing
    const unwatch = resources.onClosed((reason) => {
      armed.off = null;
      this.deps.log.warn('start.subscribe.lost', { ...at, reason });
      this.#resubscribe(armed, RESUBSCRIBE_FIRST_MS);
    });
    armed.off = () => {
      unwatch();
      off();
    };
    this.deps.log.info('start.subscribe.armed', again ? { ...at, resubscribed: true } : at);
  }

  /** Tries to subscribe again after `waitMs` (the server restarts), doubling the wait until it works. */
  #resubscribe(armed: Armed, waitMs: number): void {
    armed.retry = setTimeout(async () => {
      armed.retry = null;
      if (this.#armed.get(armed.id) !== armed) return;
      try {
        if (!this.deps.resources) return;
        await this.#subscribe(armed, await this.deps.resources(this.#where(armed).server), true);
        if (armed.held !== undefined && this.#mine(armed) === 0) await this.#releaseHeld(armed);
      } catch (err) {
        const next = Math.min(waitMs * 2, RESUBSCRIBE_MAX_MS);
        this.deps.log.debug('start.subscribe.retry', { ...this.#where(armed), err: describeError(err), in_ms: next });
        if (this.#armed.get(armed.id) === armed) this.#resubscribe(armed, next);
      }
    }, waitMs);
    armed.retry.unref();
  }

  async #updated(armed: Armed, resources: McpResources): Promise<void> {
    const { server, uri } = this.#where(armed);
    const content = await resources.read(uri, READ_TIMEOUT_MS).then(resourceContent, () => null);
    if (this.#armed.get(armed.id) !== armed) return;
    const filter = armed.step.fields['filter'];
    if (typeof filter === 'string' && !celHolds(filter, { content })) return;
    try {
      if (armed.opts.samples > 0) {
        armed.ring = pushSample(armed.ring, content, armed.opts.samples);
        await this.#rows?.ring(armed.id, armed.ring);
      }
      const payload = { server, uri, content };
      const now = this.deps.clock();
      const plan = planUpdate(armed.opts, armed.window?.due ?? null, now);
      if (plan.type === 'fire') return await this.#fire(armed, payload, `${now}-${++this.#seq}`);
      const due = plan.type === 'open' ? plan.due : (armed.window?.due ?? now);
      armed.window = { ...armed.window, due, payload };
      if (this.#rows) await this.#rows.window(armed.id, due, payload);
      else if (plan.type === 'open')
        armed.window.timer = setTimeout(() => void this.#windowClosed(armed.id, due), due - now);
    } catch (err) {
      this.#storeFailed(armed.id, err);
    }
  }

  /** A debounce window closed (its row came due): fires its newest payload; false when its node is not armed. */
  async #windowClosed(id: string, due: number, stored?: unknown): Promise<boolean> {
    const armed = this.#armed.get(id);
    if (!armed) return false;
    const payload = stored ?? armed.window?.payload;
    if (armed.window?.due === due) armed.window = null;
    // Keyed by the window's due time: a window fired again after a crash finds the run it started.
    await this.#fire(armed, payload, `${due}`);
    return true;
  }

  async #releaseHeld(armed: Armed): Promise<void> {
    const held = armed.held;
    if (held === undefined) return;
    armed.held = undefined;
    try {
      // Fired first, with the key it was held with, then its row deleted: a crash between the two fires it again
      // into the run it started. Held again (another run live) or a newer firing held meanwhile: the row is that one.
      await this.#fire(armed, held.payload, held.key);
      if (armed.held === undefined) await this.#rows?.hold(armed.id, undefined);
    } catch (err) {
      this.#storeFailed(armed.id, err);
    }
  }

  /** Live runs this node started. */
  #mine(armed: Armed): number {
    return this.deps.desk.engine.live().filter((r) => r.workflow === armed.workflow && r.start.node === armed.step.id)
      .length;
  }

  async #fire(armed: Armed, base: unknown, key: string): Promise<void> {
    if (this.#armed.get(armed.id) !== armed || this.deps.shed(armed.workflow, armed.step)) return;
    const { workflow, step, id } = armed;
    const payload = armed.opts.samples > 0 ? { ...(base as object), window: armed.ring } : base;
    const all = this.deps.desk.engine.live().filter((r) => r.workflow === workflow);
    const plan = planFiring(
      armed.opts,
      this.#mine(armed),
      all.map((r) => r.id),
    );
    if (plan.type === 'drop')
      return this.deps.log.info('start.subscribe.dropped', { trigger: id, reason: plan.reason });
    if (plan.type === 'hold') {
      armed.held = { payload: base, key };
      await this.#rows?.hold(id, armed.held);
      return this.deps.log.info('start.subscribe.held', { trigger: id });
    }
    if (plan.type === 'signal') {
      const signal = {
        name: String(step.fields['uri']),
        payload,
        key: `subscribe/${id}/${key}`,
        at: this.deps.clock(),
      };
      for (const run of plan.runs) await this.deps.desk.engine.mail.signal(run, signal);
      return this.deps.log.info('start.subscribe.delivered', { trigger: id, runs: plan.runs.length });
    }
    const got = await this.deps.desk.start({
      workflow,
      node: step.id,
      startKey: `subscribe/${id}/${key}`,
      payload,
      principal: principalOf(step.fields),
      conversation: null,
    });
    if (!got.ok) {
      this.deps.log.info('start.refused', { workflow, node: step.id, reason: got.error });
      return;
    }
    this.deps.log.info('start.fired', { trigger: id, kind: 'subscribe', run: got.run.id });
    this.deps.metrics?.fired('subscribe');
  }

  #storeFailed(id: string, err: unknown): void {
    this.deps.log.error('start.subscribe.store_fail', { trigger: id, err: describeError(err) });
  }
}
