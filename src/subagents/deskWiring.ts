// Builds the subagent desk from the supervisor's parts: its budget admission and spend go through the same
// ledger as turns (the caller's conversation, its owner, the instance), its think children through the same
// table, and its metrics beside the others (live subagents, spawns, refusals by gate).
import type { Spending } from '../budget/spending.js';
import type { Config } from '../config/types.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Store } from '../store/store.js';
import type { Children } from '../supervisor/children.js';
import type { PressureCause, PressureLevel } from '../supervisor/pressure.js';
import type { TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ThinkChildren } from '../supervisor/thinkChildren.js';
import type { ToolSurface } from '../tools/surface.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import type { TimerService } from '../triggers/timerService.js';
import { settlePlanItems } from './planBindings.js';
import { subagentProgress } from './subagentActivity.js';
import { SubagentDesk } from './subagentDesk.js';

export type { SubagentDesk } from './subagentDesk.js';

export interface DeskParts {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  children: Children;
  /** Where plan items bound to a subagent are settled when it ends (reference §1.9 step 4). */
  conversations: ConversationBook;
  thinks: ThinkChildren;
  spending: Spending;
  metrics: Metrics;
  /** The supervisor's options: its MCP tools, work ports and A2A task hooks (a subagent's activity feed). */
  opts: { tools?: ToolSurface | undefined; ports?: WorkPorts | undefined; tasks?: TaskHooks | undefined };
  /** The operator's hold: its pause reaches warm sessions at their next run boundary (reference §5 item 23). */
  hold: { readonly paused: boolean; readonly pressure: PressureLevel; readonly pressureCause: PressureCause | null };
  /** Checks run after every reactor step (a pause is one). */
  reactor: { watchers: Set<() => void> };
  /** The supervisor's durable timers: a subagent's `sleep` waits on one, so it outlives a restart. */
  timers?: TimerService;
}

export function subagentDesk(parts: DeskParts): SubagentDesk {
  const { spending, metrics } = parts;
  const desk = new SubagentDesk({
    ...{ config: parts.config, store: parts.store, log: parts.log, now: parts.now, children: parts.children },
    ...{ tools: parts.opts.tools, ports: parts.opts.ports, memory: parts.store.memory, journal: parts.store.journal },
    ...(parts.timers ? { timers: parts.timers } : {}),
    admit: (ctx, principal, estimate) => spending.budget.admitCall(ctx, principal, estimate, null),
    spent: (ctx, principal, usage, run) => {
      spending.subagentSpent(ctx, principal, usage);
      spending.budget.flush();
      if (run !== undefined) parts.opts.ports?.port('run_spent')?.(run, usage);
    },
    think: (job) => parts.thinks.run(job),
    settlePlans: (record) => void settlePlanItems(parts, record),
    progress: (live, event, fields) =>
      subagentProgress({ log: parts.log, tasks: parts.opts.tasks }, live, event, fields, parts.now()),
    pressure: () => ({ level: parts.hold.pressure, cause: parts.hold.pressureCause }),
    spawns: metrics.counter('agentd_subagent_spawns_total', 'Subagents spawned (and respawned), by mode.', ['mode']),
    refusals: metrics.counter('agentd_subagent_refusals_total', 'subagent.run calls refused, by gate.', ['gate']),
  });
  metrics.gauge('agentd_subagents_live', 'Subagent processes running now.', () => desk.liveCount);
  let paused = parts.hold.paused;
  // Subagents restored or spawned while already paused are held too.
  if (paused) desk.pause(true);
  parts.reactor.watchers.add(() => {
    if (parts.hold.paused === paused) return;
    paused = parts.hold.paused;
    desk.pause(paused);
  });
  return desk;
}
