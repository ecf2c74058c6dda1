// The running config as one swappable cell: every part built with `view` reads the config in force at the moment
// it reads (a turn's snapshot at its launch), so a reload swaps it for all of them in one step (interfaces §3.6).
// It never validates or diffs: the reloader does that before it swaps.
import type { Config } from '../config/types.js';

export interface LiveConfig {
  /** Reads through to the config in force; sections are the frozen objects of that config. */
  readonly view: Readonly<Config>;
  /** The config in force itself (a frozen object: a snapshot that never changes under the caller). */
  current(): Readonly<Config>;
  /** Puts `next` in force; every read after it sees `next`. */
  swap(next: Readonly<Config>): void;
}

/** A cell holding `initial`. */
export function liveConfig(initial: Readonly<Config>): LiveConfig {
  let current = initial;
  // The target stays an empty extensible object: a frozen target would pin every property to its first value.
  const view = new Proxy({} as Config, {
    get: (_t, key) => Reflect.get(current, key),
    has: (_t, key) => Reflect.has(current, key),
    ownKeys: () => Reflect.ownKeys(current),
    getOwnPropertyDescriptor: (_t, key) => {
      const found = Reflect.getOwnPropertyDescriptor(current, key);
      return found === undefined ? undefined : { ...found, configurable: true, writable: false };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  return {
    view,
    current: () => current,
    swap: (next) => {
      current = next;
    },
  };
}
