// A running subagent's live activity (issue 15 item 8): its worker's progress frames fold through the same pure
// policy as a turn's (obs/activity.ts, reference §15) and are published as activity of the conversation that
// started it, named by handle: the `activity` log line and, when that conversation's turn is an A2A task, its feed.
import { type ActivityEventName, applyProgress } from '../obs/activity.js';
import type { Logger } from '../obs/log.js';
import type { TaskHooks } from '../supervisor/supervisorOptions.js';
import type { LiveSubagent } from './subagentRunner.js';

const ACTIVITY_EVENTS = new Set<string>(['turn.think', 'turn.round', 'turn.tool']);

export interface ActivityFeed {
  log: Logger;
  tasks: TaskHooks | undefined;
}

/** Folds one progress frame into the subagent's activity and publishes it when the phase, tool or round changed. */
export function subagentProgress(
  feed: ActivityFeed,
  live: LiveSubagent,
  event: string,
  fields: Record<string, unknown>,
  now: number,
): void {
  if (!ACTIVITY_EVENTS.has(event)) return;
  const { handle, requested_by: by } = live.record;
  const step = applyProgress(live.activity, { event: event as ActivityEventName, fields }, now, { ctx: by.ctx });
  live.activity = step.state;
  if (!step.publish) return;
  const state = { ...step.state, subagent: handle };
  feed.log.info('activity', state);
  if (by.event !== null) feed.tasks?.onActivity(by.event, state);
}
