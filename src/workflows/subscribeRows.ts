// The durable state of `subscribe` starts as rows of the timer store (no table of their own): an open debounce
// window is a timer due when the window closes (its payload the newest content), so a restart inside the window
// fires it once, at its time; a firing held by `coalesce` and a `window`'s sample ring are rows that never come
// due, kept until their trigger reads them. Thin I/O over the timer service; what the rows mean is decided in
// subscribeStarts.ts and triggers/subscribePolicy.ts.
import { NEVER_DUE as NEVER, type TimerRecord } from '../domain/timer.js';
import type { TimerService } from '../triggers/timerService.js';

export const SUBSCRIBE_WINDOW_KIND = 'subscribe_window';
export const SUBSCRIBE_HELD_KIND = 'subscribe_held';
export const SUBSCRIBE_RING_KIND = 'subscribe_ring';

/** A firing `coalesce` holds: its payload and the key it fires with (a replay finds the run it started). */
export interface HeldFiring {
  payload: unknown;
  key: string;
}

/** What a trigger left stored: its open window (due, newest payload), its held firing, its ring. */
export interface StoredSubscribe {
  window: { due: number; payload: unknown } | null;
  held: HeldFiring | undefined;
  ring: unknown[];
}

/** The owner of a subscribe start's stored rows: this prefix and the trigger. */
export const OWNER_PREFIX = 'subscribe:';
const ownerOf = (trigger: string): string => `${OWNER_PREFIX}${trigger}`;

/** A held row; one stored before held firings had keys gets a key of its own (fixed by its row's id). */
function heldOf(row: TimerRecord): HeldFiring {
  const { payload, key } = row.payload as { payload: unknown; key?: unknown };
  return { payload, key: typeof key === 'string' ? key : `held-${row.id}` };
}

/** Reads and writes the rows of each trigger; `onWindow` fires a closed window of an armed trigger. */
export class SubscribeRows {
  /** Closed windows whose trigger was not armed yet in this life (each of them): kept stored until it is. */
  readonly #waiting = new Map<string, TimerRecord[]>();

  constructor(
    private readonly timers: TimerService,
    onWindow: (trigger: string, due: number, payload: unknown) => Promise<boolean>,
  ) {
    timers.handle(SUBSCRIBE_WINDOW_KIND, async (timer) => {
      const { trigger, payload } = timer.payload as { trigger: string; payload: unknown };
      if (await onWindow(trigger, timer.due, payload)) return undefined;
      const waiting = (this.#waiting.get(trigger) ?? []).filter((t) => t.id !== timer.id);
      this.#waiting.set(trigger, [...waiting, timer]);
      return 'keep';
    });
    timers.handle(SUBSCRIBE_HELD_KIND, () => 'keep');
    timers.handle(SUBSCRIBE_RING_KIND, () => 'keep');
  }

  /** What `trigger` left stored; each closed window kept for it is armed again (each fires at once). */
  async stored(trigger: string): Promise<StoredSubscribe> {
    await this.timers.ready;
    const rows = this.timers.list(ownerOf(trigger));
    const kept = this.#waiting.get(trigger) ?? [];
    this.#waiting.delete(trigger);
    const window = kept.at(-1) ?? rows.find((t) => t.kind === SUBSCRIBE_WINDOW_KIND);
    const held = rows.find((t) => t.kind === SUBSCRIBE_HELD_KIND);
    const ring = rows.find((t) => t.kind === SUBSCRIBE_RING_KIND)?.payload as { ring?: unknown[] } | undefined;
    for (const closed of kept) this.timers.rearm(closed);
    return {
      window: window ? { due: window.due, payload: (window.payload as { payload: unknown }).payload } : null,
      held: held ? heldOf(held) : undefined,
      ring: Array.isArray(ring?.ring) ? ring.ring : [],
    };
  }

  /** Opens (or rewrites, with the newest payload) the debounce window of `trigger`, due at `due`. */
  async window(trigger: string, due: number, payload: unknown): Promise<void> {
    // Keyed by its due time too: a window opened while the previous one's firing settles is another row.
    await this.#put(trigger, SUBSCRIBE_WINDOW_KIND, due, { trigger, payload }, `/${due}`);
  }

  /** Holds `held` (undefined: releases what is held). */
  async hold(trigger: string, held: HeldFiring | undefined): Promise<void> {
    if (held === undefined) await this.timers.cancel(`${ownerOf(trigger)}/${SUBSCRIBE_HELD_KIND}`);
    else await this.#put(trigger, SUBSCRIBE_HELD_KIND, NEVER, { trigger, ...held });
  }

  async ring(trigger: string, ring: readonly unknown[]): Promise<void> {
    await this.#put(trigger, SUBSCRIBE_RING_KIND, NEVER, { trigger, ring });
  }

  /** Deletes every row of `trigger` (its node is gone). */
  async forget(trigger: string): Promise<void> {
    this.#waiting.delete(trigger);
    await this.timers.cancelOwner(ownerOf(trigger));
  }

  /** Deletes the rows of every trigger not in `live` (its node was deleted while the daemon was down). */
  async forgetAllBut(live: ReadonlySet<string>): Promise<void> {
    await this.timers.ready;
    const owners = new Set(this.timers.list().map((t) => t.owner));
    for (const owner of owners) {
      const trigger = owner.startsWith(OWNER_PREFIX) ? owner.slice(OWNER_PREFIX.length) : null;
      if (trigger !== null && !live.has(trigger)) await this.forget(trigger);
    }
  }

  async #put(trigger: string, kind: string, due: number, payload: unknown, suffix = ''): Promise<void> {
    const owner = ownerOf(trigger);
    await this.timers.arm({ id: `${owner}/${kind}${suffix}`, owner, kind, due, payload });
  }
}
