// Start shedding under pressure (producers reference §3.2 step 1, §3.7): a recurring firing is shed while the
// pressure gate sheds, or warns for a `priority: low` workflow; nothing is queued and the next occurrence stays
// armed. Pure: the pressure reading comes in.

/** The pressure gate's last reading (runtime/pressureWatch.ts sets it). */
export interface PressureNow {
  level: 'ok' | 'warn' | 'shed';
  cause: string | null;
}

/** Why a firing of a workflow of `priority` is shed now, or null when it fires. */
export function shedCause(pressure: PressureNow, priority: 'low' | 'normal' | 'high'): string | null {
  const shed = pressure.level === 'shed' || (pressure.level === 'warn' && priority === 'low');
  return shed ? (pressure.cause ?? 'pressure') : null;
}
