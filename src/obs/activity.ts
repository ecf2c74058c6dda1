// Live activity of a running turn (reference §15): folds progress frames and park/unpark into a coarse state
// and says when it is worth publishing. Pure: the clock is an argument; the caller owns events and the feed.

/** What a live turn is doing now. */
export type ActivityPhase = 'thinking' | 'tool' | 'waiting';

/** One unit's live activity (a live turn). Token counts are the turn's running totals. */
export interface Activity {
  task?: string;
  ctx: string;
  phase: ActivityPhase;
  tool: string | null;
  round: number;
  tokens_in: number;
  tokens_out: number;
  started_ms: number;
  updated_ms: number;
}

/** The worker's progress frames (`turn.think`, `turn.round`, `turn.tool`) and the supervisor's park/unpark. */
export type ActivityEventName = 'turn.think' | 'turn.round' | 'turn.tool' | 'tool.park' | 'tool.unpark';

export interface ActivityEvent {
  event: ActivityEventName;
  fields: Record<string, unknown>;
}

/** Names the unit when its first event arrives (the frames carry the turn, not its context or task). */
export interface ActivityUnit {
  ctx: string;
  task?: string;
}

export interface ActivityStep {
  state: Activity;
  /** True when phase, tool or round changed (or the unit is new); token-only updates are silent. */
  publish: boolean;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
}

function toolName(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/** The unit's activity before any event: thinking in round 0. */
export function startActivity(unit: ActivityUnit, now: number): Activity {
  const state: Activity = {
    ctx: unit.ctx,
    phase: 'thinking',
    tool: null,
    round: 0,
    tokens_in: 0,
    tokens_out: 0,
    started_ms: now,
    updated_ms: now,
  };
  if (unit.task !== undefined) state.task = unit.task;
  return state;
}

/** The state one event leads to, before the publish decision. Unknown or malformed fields keep the old value. */
function nextActivity(prev: Activity, { event, fields }: ActivityEvent, now: number): Activity {
  const next: Activity = { ...prev, updated_ms: now };
  const round = count(fields.round);
  switch (event) {
    case 'turn.think':
      next.phase = 'thinking';
      next.tool = null;
      if (round !== null) next.round = round;
      break;
    case 'turn.round':
      // The worker reports the turn's running totals, not per-round deltas: take them (never backwards).
      next.phase = 'thinking';
      next.tool = null;
      if (round !== null) next.round = round;
      next.tokens_in = Math.max(prev.tokens_in, count(fields.tokens_in) ?? 0);
      next.tokens_out = Math.max(prev.tokens_out, count(fields.tokens_out) ?? 0);
      break;
    case 'turn.tool':
      next.phase = 'tool';
      next.tool = toolName(fields.tool, prev.tool);
      break;
    case 'tool.park':
      next.phase = 'waiting';
      next.tool = toolName(fields.tool, prev.tool);
      break;
    case 'tool.unpark':
      // The parked call has its answer and the worker resumes it: back to running that tool.
      next.phase = 'tool';
      next.tool = toolName(fields.tool, prev.tool);
      break;
  }
  return next;
}

/**
 * Applies one event to a unit's activity. `state` undefined = the unit's first event: it starts from `unit`
 * (ctx '' when none is given) and is always published. Otherwise published only when (phase, tool, round) changed.
 */
export function applyProgress(
  state: Activity | undefined,
  event: ActivityEvent,
  now: number,
  unit: ActivityUnit = { ctx: '' },
): ActivityStep {
  const prev = state ?? startActivity(unit, now);
  const next = nextActivity(prev, event, now);
  const changed = next.phase !== prev.phase || next.tool !== prev.tool || next.round !== prev.round;
  return { state: next, publish: state === undefined || changed };
}
