// The one ordered commit queue: every store write of the runtime runs through it, one after another, in the
// order it was asked for, so a backend whose calls overlap (a network database) still commits in reactor order.
// The reactor stays synchronous: it enqueues and awaits only where durability is promised (accept, fold).
import { STORE_PORTS, type Store } from './store.js';

export class CommitQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /**
   * Runs `op` after every write enqueued before it (at once when none is pending, so a backend that works
   * synchronously has written before this returns); settles with `op`'s result.
   */
  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.#pending === 0 ? startNow(op) : this.#tail.then(op);
    this.#pending++;
    this.#tail = result.then(
      () => this.#pending--,
      () => this.#pending--,
    );
    return result;
  }

  /** Writes enqueued and not settled yet. */
  get size(): number {
    return this.#pending;
  }

  /** Resolves once every write enqueued so far has settled (whatever its result). */
  async settled(): Promise<void> {
    await this.#tail;
  }
}

function startNow<T>(op: () => Promise<T>): Promise<T> {
  try {
    return op();
  } catch (err) {
    return Promise.reject(err);
  }
}

const ORDERED = Symbol('agentd.orderedStore');

function orderedPort<T extends object>(port: T, queue: CommitQueue): T {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'onChange') return value;
      return (...args: unknown[]) => queue.run(() => value.apply(target, args) as Promise<unknown>);
    },
  });
}

/**
 * `store` with every port call (reads too, so a read sees every write asked for before it) run through one
 * CommitQueue. Wrapping an ordered store again returns it as it is: everyone holding it shares the one queue.
 */
export function orderedStore(store: Store): Store {
  if ((store as Store & { [ORDERED]?: CommitQueue })[ORDERED] !== undefined) return store;
  const queue = new CommitQueue();
  const ports = Object.fromEntries(STORE_PORTS.map((name) => [name, orderedPort(store[name], queue)]));
  return {
    kind: store.kind,
    location: store.location,
    generation: store.generation,
    ...(store.leases ? { leases: store.leases } : {}),
    ...(store.fleet ? { fleet: store.fleet } : {}),
    ...(store.checked ? { checked: store.checked } : {}),
    ...(ports as Pick<Store, (typeof STORE_PORTS)[number]>),
    // Closing waits for what is already queued, so nothing enqueued before close is lost.
    close: () => queue.settled().then(() => store.close()),
    [ORDERED]: queue,
  } as Store;
}

/** Resolves once every call enqueued on an ordered store so far has settled (at once for a bare store). */
export async function settledWrites(store: Store): Promise<void> {
  await (store as Store & { [ORDERED]?: CommitQueue })[ORDERED]?.settled();
}
