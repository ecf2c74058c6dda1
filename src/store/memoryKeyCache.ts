// The first memory keys, kept current for the turn snapshot (built inside the reactor's synchronous tick):
// listed at start-up and again after every committed change the store announces.
import type { MemoryPort } from './store.js';

export class MemoryKeyCache {
  #keys: string[] = [];
  #off: (() => void) | null = null;
  #listing: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly memory: MemoryPort,
    private readonly limit: number,
    private readonly now: () => number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Lists the keys now and follows every later change. */
  async start(): Promise<void> {
    this.#off ??= this.memory.onChange(() => this.refresh());
    await this.list();
  }

  stop(): void {
    this.#off?.();
    this.#off = null;
  }

  /** Up to `limit` keys, sorted, as of the last listing. */
  get keys(): string[] {
    return this.#keys;
  }

  private refresh(): void {
    if (this.#listing !== null) {
      this.#again = true;
      return;
    }
    this.#listing = this.list()
      .catch(this.onError)
      .finally(() => {
        this.#listing = null;
        if (this.#again) {
          this.#again = false;
          this.refresh();
        }
      });
  }

  private async list(): Promise<void> {
    this.#keys = (await this.memory.list('', this.limit, this.now())).keys;
  }
}
