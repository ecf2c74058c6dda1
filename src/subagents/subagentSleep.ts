// A subagent's `sleep` on the supervisor's durable timer service (producers reference §3.8, issue 17): the row is
// keyed by the call (handle, run, call index), so a subagent respawned after a restart that makes the same call
// again waits until the stored due time, not a fresh one. A row outlives neither its subagent (deleted when the
// subagent ends) nor a restart that does not respawn it (dropped when it comes due with its subagent gone).
import type { TimerRecord } from '../domain/timer.js';
import type { TimerService } from '../triggers/timerService.js';

export const SUBAGENT_SLEEP_KIND = 'subagent_sleep';

const ownerOf = (handle: string): string => `subagent:${handle}`;

interface SleepPayload {
  handle: string;
  /** When the first life's call began: the answer's `slept_ms` counts from here. */
  since: number;
}

export class SubagentSleeps {
  /** Rows that came due while no call waited on them (the respawned subagent has not asked again yet). */
  readonly #kept = new Map<string, TimerRecord>();

  constructor(
    private readonly timers: TimerService,
    /** Whether the subagent `handle` is still running (or respawned to run again). */
    alive: (handle: string) => boolean,
  ) {
    timers.handle(SUBAGENT_SLEEP_KIND, (timer) => {
      if (!alive((timer.payload as SleepPayload).handle)) return undefined;
      this.#kept.set(timer.id, timer);
      return 'keep';
    });
  }

  /**
   * Parks the call keyed `callKey` of subagent `handle` until `wakeAt`, or until the due time a previous life stored
   * for the same call; `wake` gets when the sleep began. Resolves with whether it resumed a stored one, and the due.
   */
  async park(
    handle: string,
    callKey: string,
    wakeAt: number,
    wake: (since: number) => void,
  ): Promise<{ resumed: boolean; due: number }> {
    await this.timers.ready;
    const id = `subagent-sleep/${callKey}`;
    const owner = ownerOf(handle);
    const stored = this.#kept.get(id) ?? this.timers.list(owner).find((t) => t.id === id);
    this.#kept.delete(id);
    const since = stored ? (stored.payload as SleepPayload).since : this.timers.now();
    const due = stored ? stored.due : wakeAt;
    const payload: SleepPayload = { handle, since };
    await this.timers.arm({ id, owner, kind: SUBAGENT_SLEEP_KIND, due, payload }, () => wake(since));
    return { resumed: stored !== undefined, due };
  }

  /** Deletes the sleeps of a subagent that ended. */
  async forget(handle: string): Promise<void> {
    for (const id of [...this.#kept.keys()]) if (id.startsWith(`subagent-sleep/${handle}.`)) this.#kept.delete(id);
    await this.timers.cancelOwner(ownerOf(handle));
  }
}
