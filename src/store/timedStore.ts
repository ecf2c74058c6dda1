// A Store wrapper that times every call into a latency observer (the store latency metric). Adds no behaviour:
// every method forwards to the wrapped store, errors included.
import type { Store } from './store.js';

export type LatencyObserver = (op: string, seconds: number) => void;

/** `store` with each method call timed by `observe(method name, seconds)`. */
export function timedStore(store: Store, observe: LatencyObserver): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        const started = process.hrtime.bigint();
        try {
          return value.apply(target, args);
        } finally {
          observe(prop, Number(process.hrtime.bigint() - started) / 1e9);
        }
      };
    },
  });
}
