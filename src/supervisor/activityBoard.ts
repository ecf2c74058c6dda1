// The live activity of each running turn (reference §15): folds its progress through the pure obs/activity policy
// and returns what is worth publishing (only when the phase, tool or round changed).
import { type Activity, type ActivityEventName, applyProgress } from '../obs/activity.js';
import type { LiveTurn } from './liveTurn.js';

const ACTIVITY_EVENTS = new Set<string>(['turn.think', 'turn.round', 'turn.tool', 'tool.park', 'tool.unpark']);

export class ActivityBoard {
  private readonly byNode = new Map<number, Activity>();

  /** The new state when it should be published, else null. */
  progress(turn: LiveTurn, event: string, fields: Record<string, unknown>, now: number): Activity | null {
    if (!ACTIVITY_EVENTS.has(event)) return null;
    const task = turn.job.event.payload.task;
    const unit = { ctx: turn.job.ctx, ...(task ? { task: task.id } : {}) };
    const prev = this.byNode.get(turn.node);
    const { state, publish } = applyProgress(prev, { event: event as ActivityEventName, fields }, now, unit);
    this.byNode.set(turn.node, state);
    return publish ? state : null;
  }

  /** Forgets a turn that ended; true when it had any activity. */
  remove(node: number): boolean {
    return this.byNode.delete(node);
  }
}
