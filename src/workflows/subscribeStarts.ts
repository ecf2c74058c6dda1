// Subscribe start nodes (producers reference §3.6): each armed node subscribes to its MCP resource on the
// supervisor's connection; an update is read (JSON when it parses, else text, null when the read fails), passed
// through `filter` (CEL over `{content}`), and fires a run at once or, with `debounce_ms`, once per window with the
// newest content. Armed when the definition is (at start, and at once for one created at run time).
import type { StepDef } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { McpResources } from '../tools/mcp/mcpResources.js';
import type { TriggerMetrics } from '../triggers/triggerMetrics.js';
import { resourceContent } from './kinds/mcpResourceKind.js';
import { celHolds, principalOf } from './startFields.js';
import type { WorkflowDesk } from './workflowDesk.js';

const SUBSCRIBE_TIMEOUT_MS = 10_000;
const READ_TIMEOUT_MS = 10_000;

export interface SubscribeDeps {
  desk: WorkflowDesk;
  log: Logger;
  clock(): number;
  metrics?: TriggerMetrics | undefined;
  /** A configured MCP server's resources; rejects when there is none (the node is not armed). */
  resources?: ((server: string) => Promise<McpResources>) | undefined;
  /** True (logged) when a firing of `step` is shed under pressure now. */
  shed(workflow: string, step: StepDef): boolean;
}

interface Armed {
  workflow: string;
  step: StepDef;
  off: (() => void) | null;
  /** The newest payload of an open debounce window, fired at `at`. */
  pending: { payload: unknown; at: number; timer: NodeJS.Timeout } | null;
}

export class SubscribeStarts {
  readonly #armed = new Map<string, Armed>();
  #seq = 0;

  constructor(private readonly deps: SubscribeDeps) {}

  /** Subscribes the node `step` of `workflow` to its resource (`start.subscribe.armed|fail|no_server`). */
  async arm(workflow: string, step: StepDef): Promise<void> {
    const id = `${workflow}.${step.id}`;
    this.disarm(id);
    const server = String(step.fields['server']);
    const uri = String(step.fields['uri']);
    const at = { workflow, node: step.id, server, uri };
    const armed: Armed = { workflow, step, off: null, pending: null };
    this.#armed.set(id, armed);
    let resources: McpResources;
    try {
      if (!this.deps.resources) throw new Error('this instance has no MCP servers');
      resources = await this.deps.resources(server);
    } catch (err) {
      this.#armed.delete(id);
      this.deps.log.warn('start.subscribe.no_server', { ...at, err: describeError(err) });
      return;
    }
    try {
      const off = await resources.subscribe(uri, () => void this.#updated(id, armed, resources), SUBSCRIBE_TIMEOUT_MS);
      if (this.#armed.get(id) !== armed) return off(); // disarmed while subscribing
      armed.off = off;
      this.deps.log.info('start.subscribe.armed', at);
    } catch (err) {
      this.#armed.delete(id);
      this.deps.log.warn('start.subscribe.fail', { ...at, err: describeError(err) });
    }
  }

  /** Unsubscribes a node (its definition changed, was deleted or disarmed); an open window fires nothing. */
  disarm(id: string): void {
    const armed = this.#armed.get(id);
    if (!armed) return;
    this.#armed.delete(id);
    armed.off?.();
    if (armed.pending) clearTimeout(armed.pending.timer);
  }

  idsOf(workflow: string): string[] {
    return [...this.#armed.values()].filter((a) => a.workflow === workflow).map((a) => `${a.workflow}.${a.step.id}`);
  }

  stop(): void {
    for (const id of [...this.#armed.keys()]) this.disarm(id);
  }

  async #updated(id: string, armed: Armed, resources: McpResources): Promise<void> {
    const { fields } = armed.step;
    const uri = String(fields['uri']);
    const content = await resources.read(uri, READ_TIMEOUT_MS).then(resourceContent, () => null);
    if (this.#armed.get(id) !== armed) return;
    const filter = fields['filter'];
    if (typeof filter === 'string' && !celHolds(filter, { content })) return;
    const payload = { server: String(fields['server']), uri, content };
    const debounce = typeof fields['debounce_ms'] === 'number' ? fields['debounce_ms'] : 0;
    if (debounce <= 0) return this.#fire(id, armed, payload, this.deps.clock());
    // Reference §3.6: the first update opens the window; later ones only replace the payload it fires with.
    if (armed.pending) {
      armed.pending.payload = payload;
      return;
    }
    const at = this.deps.clock() + debounce;
    const timer = setTimeout(() => {
      const due = armed.pending;
      armed.pending = null;
      if (due) void this.#fire(id, armed, due.payload, due.at);
    }, debounce);
    armed.pending = { payload, at, timer };
  }

  async #fire(id: string, armed: Armed, payload: unknown, at: number): Promise<void> {
    if (this.#armed.get(id) !== armed || this.deps.shed(armed.workflow, armed.step)) return;
    const { workflow, step } = armed;
    const got = await this.deps.desk.start({
      workflow,
      node: step.id,
      startKey: `subscribe/${id}/${at}-${++this.#seq}`,
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
}
