// Whether the store takes commits (issue 13 item 8): a commit the store refused for an I/O-class cause (disk full,
// an I/O error, busy past the lock) marks the store failing. While it fails, `/readyz` says not ready and new
// accepts get one retryable error instead of piling acknowledged work onto a store that cannot fold it. A fold's
// mark lasts until that fold commits (its timer retries it); an accept's mark until any commit sticks or
// ACCEPT_PROBE_MS pass, so the next accept probes again even when a load balancer routes nothing here meanwhile.
import { DaemonError, describeError } from '../errors.js';

/** What a caller hears while the store cannot commit: retryable, and free of paths or store details. */
export const STORE_UNAVAILABLE =
  'the store cannot commit right now (disk full or an I/O error); nothing was accepted; send it again later ' +
  '(the same messageId is safe to retry)';

/** How long a refused accept alone keeps the instance not ready before the next accept may probe the store. */
export const ACCEPT_PROBE_MS = 5_000;

const ACCEPT = 'accept';

/** True for the store's I/O-class refusals (sqliteErrors.ts maps SQLITE_FULL, IOERR, BUSY… to `store_io`). */
export function isStoreIo(err: unknown): boolean {
  return err instanceof DaemonError && err.code === 'store_io';
}

/**
 * A fold refusal that says the store cannot take commits now: an I/O-class one, or a revision conflict (what a
 * fold meets after a checkpoint of its conversation was refused for I/O). A constraint or a bug is one fold's.
 */
function refusedForNow(err: unknown): boolean {
  return isStoreIo(err) || (err instanceof DaemonError && err.code === 'store_conflict');
}

export class CommitHealth {
  readonly #failing = new Set<string>();
  #acceptRefusedAt: number | null = null;

  /** `onFailure` hears each refused accept as it happens (the log), with the store's own words. */
  constructor(
    private readonly onFailure: (key: string, err: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The commit `key` names was refused by the store. Only an I/O-class `err` counts (a constraint or a bug in one
   * fold is not an outage); without `err` the caller has classified it already.
   */
  failed(key: string, err?: unknown): void {
    if (err !== undefined && !refusedForNow(err)) return;
    if (key === ACCEPT) this.#acceptRefusedAt = this.now();
    else this.#failing.add(key);
    if (err !== undefined && key === ACCEPT) this.onFailure(key, describeError(err));
  }

  /** The commit `key` names stuck: it fails no more, and the store took a commit, so an accept's mark clears. */
  succeeded(key: string): void {
    this.#failing.delete(key);
    this.#acceptRefusedAt = null;
  }

  /** True while some fold was refused and has not stuck since, or an accept was refused lately. */
  get failing(): boolean {
    return this.#failing.size > 0 || this.#acceptFailing();
  }

  /**
   * Runs an accept's commit: refused at once while folds fail; a store failure becomes the one retryable
   * `store_unavailable` error the caller can act on. Anything else (a conflict, a bug) passes through.
   */
  async accept<T>(key: string, commit: () => Promise<T>): Promise<T> {
    if (this.#failing.size > 0) throw new DaemonError('store_unavailable', STORE_UNAVAILABLE, true);
    try {
      const done = await commit();
      this.succeeded(key);
      return done;
    } catch (err) {
      if (!isStoreIo(err)) throw err;
      this.failed(ACCEPT, err);
      throw new DaemonError('store_unavailable', STORE_UNAVAILABLE, true);
    }
  }

  #acceptFailing(): boolean {
    return this.#acceptRefusedAt !== null && this.now() - this.#acceptRefusedAt < ACCEPT_PROBE_MS;
  }
}
