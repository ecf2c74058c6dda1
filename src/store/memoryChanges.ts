// The memory port's change notification, shared by every backend: listeners hear each committed set or delete.
import type { MemoryChange } from './store.js';

export class MemoryChanges {
  readonly #listeners = new Set<(change: MemoryChange) => void>();

  subscribe(listener: (change: MemoryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; one that throws does not keep the others (or the writer) from hearing it. */
  emit(change: MemoryChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the write has committed regardless.
      }
    }
  }
}
