// The spawn log (spawnLog.ts) kept durably: each note is written to the store's spawn log, and a restore reads it
// back, so `limits.subagents.total` still counts a subagent whose record was pruned before the restart (reference
// §5 item 4). A thin shell over the pure log; a failed write is logged, the gate goes on from memory.
import type { SubagentRecord } from '../domain/subagent.js';
import type { SubagentsPort } from '../store/store.js';
import { type RateBucket, seedBucket } from './gates.js';
import { countRecent, noteActivity, RECENT_MS, type SpawnLog, seedSpawnLog } from './spawnLog.js';

export class SpawnJournal {
  private log: SpawnLog = new Map();

  constructor(
    private readonly port: SubagentsPort,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** The stored log within the window, with each kept record's last update (whichever is later). */
  async load(records: Iterable<SubagentRecord>, now: number): Promise<void> {
    const log = seedSpawnLog(records);
    for (const { handle, at } of await this.port.activity(now - RECENT_MS)) {
      log.set(handle, Math.max(at, log.get(handle) ?? at));
    }
    this.log = log;
  }

  /** A spawn or an end of `handle` at `now`, here and in the store. */
  note(handle: string, now: number): void {
    noteActivity(this.log, handle, now);
    this.port.noteActivity(handle, now, now - RECENT_MS).catch(this.failed);
  }

  /** The rate bucket a start begins with: short of the handles active within one period (gates.ts seedBucket). */
  bucket(rate: string, now: number): RateBucket {
    return seedBucket(rate, (periodMs) => this.countSince(now - periodMs), now);
  }

  private countSince(since: number): number {
    let n = 0;
    for (const at of this.log.values()) if (at >= since) n++;
    return n;
  }

  /** What gate 4 counts: live records plus handles active within the window. */
  count(records: Iterable<SubagentRecord>, now: number): number {
    return countRecent(this.log, records, now);
  }
}
