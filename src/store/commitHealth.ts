// Whether the store takes commits (issue 13 item 8): a commit the store refused (disk full, an I/O error) marks its
// key failing until a later commit of the same key sticks. While any fails, `/readyz` says not ready and new
// accepts get one retryable error instead of piling acknowledged work onto a store that cannot fold it.
import { DaemonError, describeError } from '../errors.js';

/** What a caller hears while the store cannot commit: retryable, and free of paths or store details. */
export const STORE_UNAVAILABLE =
  'the store cannot commit right now (disk full or an I/O error); nothing was accepted; send it again later ' +
  '(the same messageId is safe to retry)';

export class CommitHealth {
  readonly #failing = new Set<string>();

  /** `onFailure` hears each refused accept as it happens (the log), with the store's own words. */
  constructor(private readonly onFailure: (key: string, err: string) => void = () => {}) {}

  /** The commit `key` names was refused by the store. */
  failed(key: string, err?: unknown): void {
    this.#failing.add(key);
    if (err !== undefined) this.onFailure(key, describeError(err));
  }

  /** The commit `key` names stuck: it fails no more. */
  succeeded(key: string): void {
    this.#failing.delete(key);
  }

  /** True while some commit was refused and has not stuck since. */
  get failing(): boolean {
    return this.#failing.size > 0;
  }

  /**
   * Runs an accept's commit: refused at once while other commits fail; a store failure becomes the one retryable
   * `store_unavailable` error the caller can act on. Anything else (a conflict, a bug) passes through.
   */
  async accept<T>(key: string, commit: () => Promise<T>): Promise<T> {
    if ([...this.#failing].some((k) => k !== key)) throw new DaemonError('store_unavailable', STORE_UNAVAILABLE, true);
    try {
      const done = await commit();
      this.succeeded(key);
      return done;
    } catch (err) {
      if (!(err instanceof DaemonError) || err.code !== 'store_io') throw err;
      this.failed(key, err);
      throw new DaemonError('store_unavailable', STORE_UNAVAILABLE, true);
    }
  }
}
