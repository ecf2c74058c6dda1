// The producer seam: anything that turns the outside world (or a timer, or another run) into inbox events.
// A producer only accepts; it never reaches into the supervisor's state (data flows producer → inbox → …).
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { TurnFeed } from '../steering/turnFeed.js';
import type { Accepted, Store } from '../store/store.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { AcceptInput } from '../supervisor/supervisorOptions.js';
import type { ToolSurface } from '../tools/surface.js';
import type { A2aStarts } from '../triggers/a2aStarts.js';
import type { ScheduleRunner } from '../triggers/scheduleRunner.js';
import type { PressureNow } from '../triggers/shedPolicy.js';
import type { TimerService } from '../triggers/timerService.js';
import type { TriggerMetrics } from '../triggers/triggerMetrics.js';
import type { WebhookRoutes } from '../triggers/webhooks.js';
import type { ReloadReport } from './reload.js';
import type { TaskHooksSlot } from './taskSlot.js';
import type { WorkPortSlot } from './workPortSlot.js';

/** The operator-facing controls a producer may offer its callers (the A2A listener's commands, cancel). */
export type SupervisorPort = Pick<
  Supervisor,
  'steering' | 'intake' | 'cancelEvent' | 'pause' | 'resume' | 'status' | 'subagents'
>;

/** What a producer starts with. */
export interface ProducerContext {
  config: Readonly<Config>;
  /**
   * Durably accepts one event; resolves once it is committed. Idempotent per (principal, `dedupe_key`): a second
   * accept with the same key writes nothing and resolves with the first event (`created: false`).
   */
  accept(input: AcceptInput): Promise<Accepted>;
  clock(): number;
  /** The store, for a producer that keeps records of its own beside the inbox (the A2A backend's tasks). */
  store: Store;
  log: Logger;
  supervisor: SupervisorPort;
  /** Where a producer that owns A2A tasks plugs its hooks in (at most one does). */
  tasks: TaskHooksSlot;
  /** Asks the runtime to drain and stop (the operator's `drain` command); `reason` goes on `drain.start`. */
  requestStop(reason?: string): void;
  /** Reloads the config (the operator's `reload` command; interfaces §3.6). */
  reload(): ReloadReport;
  /** What the supervisor publishes about turns: committed folds, idle boundaries, a conversation's activity. */
  turns: TurnFeed;
  /** Where a producer that tools start work through (message.send, side.start) plugs its handler in. */
  ports: WorkPortSlot;
  /**
   * Resolves once the restore has queued what was pending. `accept` waits for it by itself; the `supervisor`
   * port refuses calls until then (a conversation not yet loaded cannot be steered).
   */
  restored: Promise<void>;
  /** Webhook routes the A2A listener serves (the workflow engine registers them). */
  webhooks?: WebhookRoutes;
  /** The `a2a` start nodes (the workflow engine registers them; the A2A task backend asks them first). */
  a2aStarts?: A2aStarts;
  /** The supervisor's MCP connections, for producers whose work calls MCP tools itself (workflow steps). */
  mcp?: Pick<ToolSurface, 'callRoute' | 'resources' | 'knowledgeRoute' | 'skills' | 'readSkill'>;
  /** Schedules on the supervisor's durable timers (the workflow engine arms its schedule starts there). */
  schedules?: ScheduleRunner;
  /** The pressure gate's last reading: recurring start firings are shed under it (reference §3.2 step 1). */
  pressure?(): PressureNow;
  /** The supervisor's durable timers (the workflow desk keeps its queued starts there). */
  timers?: TimerService;
  /** Trigger counters (firings by kind) for start nodes fired outside the schedule runner and webhook routes. */
  triggerMetrics?: TriggerMetrics;
  /** The instance's metrics, for a producer that keeps counters of its own (workflow runs). */
  metrics?: Pick<Metrics, 'counter' | 'gauge'>;
  /** Test-only crash points (`AGENTD_TEST_KILL_AT`): SIGKILLs this process when `name` is armed, else nothing. */
  killPoint?(name: string): void;
}

/**
 * A source of inbox events with a lifecycle: started in registration order, stopped in the reverse order. On a
 * stop, every producer's `stopIntake` runs first (newest first), then the supervisor drains, then `stop` runs.
 */
export interface Producer {
  /** Shown in logs (`producer.started`) and errors. */
  readonly name: string;
  start(ctx: ProducerContext): Promise<void> | void;
  /**
   * Optional: stop taking new work, telling callers why (the drain starts next); keep serving what is running.
   * Without it, the runtime's `accept` refuses this producer's events during the drain anyway.
   */
  stopIntake?(): Promise<void> | void;
  /** Release everything (listeners, timers); runs after the drain. */
  stop(): Promise<void> | void;
}

/** Builds a producer from the config, or returns null when its config leaves it off. */
export type ProducerFactory = (config: Readonly<Config>) => Producer | null;
