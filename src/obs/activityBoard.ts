// The live activity of each running turn (reference §15): folds its progress through the pure obs/activity policy
// and returns what is worth publishing (only when the phase, tool or round changed).
// It reads the turn through the narrow shapes below, so obs imports nothing from the supervisor (DESIGN.md, data flow).
import { type Activity, type ActivityEventName, applyProgress } from './activity.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { RunTap } from './runTap.js';

/** What the board reads of a live turn (the supervisor's LiveTurn has this shape). */
export interface BoardTurn {
  /** The child's node number: one live turn each. */
  readonly node: number;
  readonly turnId: string;
  /** The tool names the turn was offered (a latency label is one of them). */
  readonly offered: ReadonlySet<string>;
  readonly job: {
    readonly ctx: string;
    readonly event: { readonly id: string; readonly payload: { task?: { id: string } } };
  };
}

/** Where a turn's progress goes beyond the log: the task owner's live feed (the supervisor's TaskHooks). */
export interface ProgressFeed {
  onActivity(eventId: string, activity: Record<string, unknown>): void;
  onEngineEvent(eventId: string, type: 'body' | 'tool_card', fields: Record<string, unknown>): void;
}

const ACTIVITY_EVENTS = new Set<string>(['turn.think', 'turn.round', 'turn.tool', 'tool.park', 'tool.unpark']);

/** The tool label of a call to a name the model was not offered: the label set stays as small as the tool set. */
export const UNOFFERED_TOOL = '_unoffered';

export class ActivityBoard {
  private readonly byNode = new Map<number, Activity>();
  /** When each live turn's current model call started (its `turn.think`), for the model latency histogram. */
  private readonly modelCallSince = new Map<number, number>();

  /**
   * `tap`: where every progress event also goes, for the one who started the run; `metrics`: where model and tool
   * call latencies are observed.
   */
  constructor(
    readonly tap?: RunTap,
    private readonly metrics?: () => Metrics,
  ) {}

  /** Model call latency from `turn.think` to `turn.round`; tool latency as the worker measured it. */
  time(turn: BoardTurn, event: string, fields: Record<string, unknown>, now: number): void {
    const metrics = this.metrics?.();
    if (!metrics) return;
    if (event === 'turn.think') this.modelCallSince.set(turn.node, now);
    else if (event === 'turn.round') {
      const since = this.modelCallSince.get(turn.node);
      this.modelCallSince.delete(turn.node);
      if (since !== undefined) metrics.modelLatency.observe({}, (now - since) / 1000);
    } else if (event === 'turn.tool_done' && typeof fields.ms === 'number') {
      const name = String(fields.tool);
      metrics.toolLatency.observe({ tool: turn.offered.has(name) ? name : UNOFFERED_TOOL }, fields.ms / 1000);
    }
  }

  /** The new state when it should be published, else null. */
  progress(turn: BoardTurn, event: string, fields: Record<string, unknown>, now: number): Activity | null {
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
    this.modelCallSince.delete(node);
    return this.byNode.delete(node);
  }
}

/** The worker progress that feeds a task's live feed as its own engine event. */
const ENGINE_PROGRESS = { 'turn.text': 'body', 'turn.tool_done': 'tool_card' } as const;

/**
 * Publishes a worker's progress: body text and tool cards go to the task's feed as engine events (never to the
 * log: they carry content); activity goes to the log and the feed only when the phase, tool or round changed.
 */
export function publishProgress(
  feed: { board: ActivityBoard; log: Logger; tasks: ProgressFeed | undefined },
  turn: BoardTurn,
  event: string,
  fields: Record<string, unknown>,
  now: number,
): void {
  feed.board.tap?.publish(turn.job.event.id, turn.turnId, event, fields);
  feed.board.time(turn, event, fields, now);
  const engine = Object.hasOwn(ENGINE_PROGRESS, event) ? ENGINE_PROGRESS[event as keyof typeof ENGINE_PROGRESS] : null;
  if (engine) {
    feed.tasks?.onEngineEvent(turn.job.event.id, engine, { ctx: turn.job.ctx, ...fields });
    return;
  }
  const state = feed.board.progress(turn, event, fields, now);
  if (!state) return;
  feed.log.info('activity', { node: turn.node, ...state });
  feed.tasks?.onActivity(turn.job.event.id, { ...state });
}
