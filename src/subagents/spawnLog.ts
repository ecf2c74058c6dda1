// What `limits.subagents.total` counts (reference §5 item 4): subagents live or active within the last hour. A
// log of each handle's last activity (its spawn, then its end), kept apart from the records, so pruning a record
// (retention.ts) does not free a slot. Kept durably by spawnJournal.ts. Pure.
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';

/** How long an ended subagent still counts against `limits.subagents.total`. */
export const RECENT_MS = 3_600_000;

/** Handle → epoch ms of its spawn or, once ended, its end. */
export type SpawnLog = Map<string, number>;

/** The log a restore starts from: each kept record at its last update. */
export function seedSpawnLog(records: Iterable<SubagentRecord>): SpawnLog {
  return new Map([...records].map((r) => [r.handle, r.updated]));
}

/** Notes a spawn or an end at `now`, and forgets entries older than the window. */
export function noteActivity(log: SpawnLog, handle: string, now: number): void {
  log.set(handle, now);
  for (const [h, at] of log) if (now - at >= RECENT_MS) log.delete(h);
}

/** Live records plus handles active within the window, each once. */
export function countRecent(log: ReadonlyMap<string, number>, records: Iterable<SubagentRecord>, now: number): number {
  const counted = new Set<string>();
  for (const r of records) if (!isTerminal(r.status)) counted.add(r.handle);
  for (const [handle, at] of log) if (now - at < RECENT_MS) counted.add(handle);
  return counted.size;
}
