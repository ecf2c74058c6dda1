// Values of a store sequence handed out synchronously (the reactor names a turn inside its tick): a block is
// reserved ahead, durably, and the next one is asked for while half of the current one is still left.
// Values stay unique across restarts; a restart skips what its predecessor reserved and never used.
import type { SequencesPort } from './store.js';

export class SequenceBlock {
  /** Reserved, unused ranges [from, to], in order. */
  readonly #ranges: Array<{ from: number; to: number }> = [];
  #refilling = false;

  constructor(
    private readonly sequences: SequencesPort,
    private readonly name: string,
    private readonly size = 1000,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Reserves the first block (start-up, before the first `take`). */
  async reserve(): Promise<void> {
    this.add(await this.sequences.next(this.name, this.size));
  }

  /** The next value; throws when nothing is reserved (start-up did not reserve, or the store keeps failing). */
  take(): number {
    const range = this.#ranges[0];
    if (range === undefined) throw new Error(`sequence ${this.name}: no values reserved (the store has not answered)`);
    const value = range.from++;
    if (range.from > range.to) this.#ranges.shift();
    if (this.left() < this.size / 2) this.refill();
    return value;
  }

  private left(): number {
    return this.#ranges.reduce((sum, r) => sum + r.to - r.from + 1, 0);
  }

  private add(last: number): void {
    this.#ranges.push({ from: last - this.size + 1, to: last });
  }

  private refill(): void {
    if (this.#refilling) return;
    this.#refilling = true;
    this.sequences
      .next(this.name, this.size)
      .then((last) => this.add(last), this.onError)
      .finally(() => {
        this.#refilling = false;
      });
  }
}
