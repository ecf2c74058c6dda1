// Child liveness (reference §1.6, tightened by issue 12): is a worker process healthy, from what the supervisor
// saw of it and the clock. Pure: no timers, no signals; the child manager pings, classifies and kills.

/** What the supervisor last saw of one child process (every time in ms on the supervisor's clock). */
export interface ChildVitals {
  /** `spare`: started, waiting for its spawn frame (no progress expected); `running`: it has a turn. */
  phase: 'spare' | 'running';
  /** The process has exited (or its pipe closed). */
  exited: boolean;
  /** When the process was started. */
  spawnedAt: number;
  /** The last frame other than `pong` (or the spawn frame handed to it): progress. */
  lastEventAt: number;
  /** The last frame of any kind, `pong` included: the process answers. */
  lastPongAt: number;
  /** The last `pong` that said the worker was inside a long model, tool or budget call (0: never). */
  lastBusyAt: number;
  /** The oldest ping not answered yet (any frame answers it), or null. */
  pingSentAt: number | null;
  /** Past this the child is killed whatever it does (the turn's deadline plus a grace); null: none. */
  deadlineAt: number | null;
}

export interface LivenessLimits {
  /** No frame at all for this long: stuck (stopped, or its event loop is blocked). Default 10 s. */
  pongTimeoutMs: number;
  /** A running child with no progress and outside a long call for this long: wedged. Default 120 s. */
  progressTimeoutMs: number;
}

export const DEFAULT_LIVENESS: LivenessLimits = { pongTimeoutMs: 10_000, progressTimeoutMs: 120_000 };

/** Why a child is unhealthy (the `health` field of `child.unhealthy`). */
export type ChildHealth = 'dead' | 'deadline_exceeded' | 'stuck' | 'no_progress';

export type Liveness = { kind: 'healthy' } | { kind: 'unhealthy'; health: ChildHealth; detail: string };

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Classifies a child: exited ⇒ dead; past its deadline ⇒ deadline_exceeded; silent past the pong timeout ⇒ stuck;
 * running with no progress past the progress timeout while not inside a long call ⇒ no_progress; else healthy.
 */
export function classifyChild(child: ChildVitals, now: number, limits: LivenessLimits = DEFAULT_LIVENESS): Liveness {
  if (child.exited) return unhealthy('dead', 'the worker process is gone');
  if (child.deadlineAt !== null && now > child.deadlineAt) {
    return unhealthy('deadline_exceeded', 'the worker outlived its deadline');
  }
  const silent = now - child.lastPongAt;
  if (silent > limits.pongTimeoutMs) return unhealthy('stuck', `no answer to pings for ${seconds(silent)}`);
  if (child.phase === 'running') {
    const idle = now - Math.max(child.lastEventAt, child.lastBusyAt);
    if (idle > limits.progressTimeoutMs) {
      return unhealthy('no_progress', `no progress for ${seconds(idle)} outside a model or tool call`);
    }
  }
  return { kind: 'healthy' };
}

/**
 * A spare may be handed a turn: healthy, and it answered its latest ping or that ping is still fresh — a spare
 * that let a ping go unanswered longer than `answerWithinMs` is replaced rather than trusted with a turn.
 */
export function spareUsable(
  child: ChildVitals,
  now: number,
  answerWithinMs: number,
  limits: LivenessLimits = DEFAULT_LIVENESS,
): boolean {
  if (classifyChild(child, now, limits).kind !== 'healthy') return false;
  return child.pingSentAt === null || now - child.pingSentAt <= answerWithinMs;
}

/** How often each child is pinged: a third of the pong timeout, clamped to [50 ms, 5 s] (reference §1.6). */
export function pingIntervalMs(limits: LivenessLimits): number {
  return Math.min(5_000, Math.max(50, Math.floor(limits.pongTimeoutMs / 3)));
}

function unhealthy(health: ChildHealth, detail: string): Liveness {
  return { kind: 'unhealthy', health, detail };
}
