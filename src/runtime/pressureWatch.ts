// Watches pressure (reference §4): a reading at most every 2 s, each transition logged once with its cause and the
// free bytes, the level handed to the supervisor's gate and shown in metrics. Never touches a running turn.
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import {
  NO_PRESSURE,
  nextPressure,
  PRESSURE_INTERVAL_MS,
  type PressureCause,
  type PressureLevel,
  type PressureState,
  pressureDue,
} from '../supervisor/pressure.js';
import type { PressureProbe } from './pressureProbe.js';

export interface PressureWatchDeps {
  probe: PressureProbe;
  /** `store.min_free` in force (read at each reading). */
  minFree(): number;
  /** The supervisor's gate. */
  gate(level: PressureLevel, cause: PressureCause | null): void;
  log: Logger;
  metrics: Metrics;
  now(): number;
}

const LEVELS: Record<PressureLevel, number> = { ok: 0, warn: 1, shed: 2 };

/** Starts watching: the first reading is taken before this resolves, so no turn starts under pressure. */
export async function watchPressure(deps: PressureWatchDeps): Promise<{ state(): PressureState; stop(): void }> {
  let state = NO_PRESSURE;
  let failing = false;
  deps.metrics.gauge(
    'agentd_pressure_level',
    'Pressure: 0 ok, 1 warn (low-priority work held), 2 shed.',
    () => LEVELS[state.level],
  );
  deps.metrics.gauge(
    'agentd_disk_free_bytes',
    "Free bytes on the store's filesystem (-1: not measured).",
    () => state.diskFreeBytes ?? -1,
  );
  const check = async (): Promise<void> => {
    const now = deps.now();
    if (!pressureDue(state, now)) return;
    let reading: Awaited<ReturnType<PressureProbe>>;
    try {
      reading = await deps.probe();
      failing = false;
    } catch (err) {
      // A failed reading keeps the last level: one error line per run of failures, not one per tick.
      if (!failing) deps.log.warn('pressure.probe_failed', { err: describeError(err) });
      failing = true;
      return;
    }
    const before = state;
    const step = nextPressure(state, reading, deps.minFree(), now);
    state = step.state;
    if (step.event !== null) {
      const cause = state.cause ?? before.cause;
      const fields = { level: state.level, cause, disk_free_bytes: state.diskFreeBytes, min_free: deps.minFree() };
      if (step.event === 'pressure.cleared') deps.log.info(step.event, fields);
      else deps.log.warn(step.event, fields);
      deps.gate(state.level, state.cause);
    }
  };
  await check();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void check().finally(() => {
      running = false;
    });
  }, PRESSURE_INTERVAL_MS / 4);
  timer.unref();
  return { state: () => state, stop: () => clearInterval(timer) };
}
