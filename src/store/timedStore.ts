// A Store wrapper that times every port call (until its promise settles) into a latency observer (the store
// latency metric, op = "port.method"). Adds no behaviour: every call forwards to the wrapped store, errors included.
import { STORE_PORTS, type Store } from './store.js';

export type LatencyObserver = (op: string, seconds: number) => void;

function timedPort<T extends object>(port: T, name: string, observe: LatencyObserver): T {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      // onChange is a subscription, not a store round trip.
      if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'onChange') return value;
      return (...args: unknown[]) => {
        const started = process.hrtime.bigint();
        const done = (): void => observe(`${name}.${prop}`, Number(process.hrtime.bigint() - started) / 1e9);
        const result = value.apply(target, args) as Promise<unknown>;
        result.then(done, done);
        return result;
      };
    },
  });
}

/** `store` with each port call timed by `observe("port.method", seconds)`. */
export function timedStore(store: Store, observe: LatencyObserver): Store {
  const ports = Object.fromEntries(STORE_PORTS.map((name) => [name, timedPort(store[name], name, observe)]));
  return {
    kind: store.kind,
    location: store.location,
    generation: store.generation,
    ...(store.leases ? { leases: store.leases } : {}),
    ...(store.fleet ? { fleet: store.fleet } : {}),
    ...(ports as Pick<Store, (typeof STORE_PORTS)[number]>),
    close: () => store.close(),
  };
}
