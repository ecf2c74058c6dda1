// What resolves `wait on: condition` and keeps a `wait on: webhook` callback route open (producers reference §2.8,
// §3.7). A condition is re-checked when memory it names or a signal changes (and each second when it reads now_ms);
// a callback hit is held on the run (durable) before it is answered, and the wait takes it on the run's next pass.
// Both are watches the engine re-arms after a restart, so the waits survive it (agentd's callback routes do not).
import type { StepWait, WorkflowRun } from '../domain/workflow.js';
import { compileCel, evalPredicate, keysRead } from '../expr/cel.js';
import { isExpired } from '../store/memoryKeys.js';
import type { MemoryPort } from '../store/store.js';
import { done, failed, type StepCallbacks, type StepResult } from './nodeKind.js';

/** The last signal of each name this process delivered (memory only, as agentd's, ≤ 64 names). */
export class SignalMemory {
  static readonly BOUND = 64;
  readonly #last = new Map<string, { payload: unknown; ts: number; from: string | null }>();
  readonly #listeners = new Set<() => void>();

  remember(name: string, payload: unknown, ts: number, from: string | null): void {
    this.#last.delete(name);
    this.#last.set(name, { payload: payload ?? null, ts, from });
    if (this.#last.size > SignalMemory.BOUND) this.#last.delete(this.#last.keys().next().value as string);
    for (const listener of this.#listeners) listener();
  }

  snapshot(): Record<string, unknown> {
    return Object.fromEntries(this.#last);
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export interface DeliverySources {
  memory?: Pick<MemoryPort, 'get' | 'onChange'>;
  signals?: SignalMemory;
  callbacks?: StepCallbacks;
  /** Holds `payload` on live run `run` under `channel` (saved before it resolves); false when it is not live. */
  deliver?(run: string, channel: string, payload: unknown, key: string): Promise<boolean>;
}

const NOW_POLL_MS = 1_000;

/** Resolves `{satisfied: true}` once the condition holds, a failure on an error, or null once `signal` aborts. */
export function watchCondition(
  sources: DeliverySources,
  run: Readonly<WorkflowRun>,
  text: string,
  signal: AbortSignal,
): Promise<StepResult | null> {
  const compiled = compileCel(text);
  if (!compiled.ok) return Promise.resolve(failed(`wait condition: ${compiled.error}`));
  const keys = keysRead(text, 'memory') ?? [];
  const named = keysRead(text, 'signals') ?? [];
  return new Promise((resolve) => {
    const memory = new Map<string, unknown>();
    const offs: Array<() => void> = [];
    let loaded = false;
    const finish = (result: StepResult | null): void => {
      for (const off of offs.splice(0)) off();
      resolve(result);
    };
    const check = (): void => {
      if (!loaded) return;
      const signals = sources.signals?.snapshot() ?? {};
      const scope = { memory: Object.fromEntries(memory), signals, now_ms: Date.now(), inputs: run.inputs };
      const out = evalPredicate(compiled.program, scope);
      if (out.ok && out.value === true) finish(done({ satisfied: true }));
      // Not yet while a memory key or signal it names is absent: it may come later (as the await tool's rule).
      else if (!out.ok && keys.every((k) => memory.has(k)) && named.every((n) => n in signals))
        finish(failed(`wait condition: ${out.error}`));
    };
    signal.addEventListener('abort', () => finish(null), { once: true });
    offs.push(
      sources.memory?.onChange(({ key, entry }) => {
        if (!keys.includes(key)) return;
        if (entry === null) memory.delete(key);
        else memory.set(key, entry.value);
        check();
      }) ?? (() => {}),
      sources.signals?.onChange(check) ?? (() => {}),
    );
    if (text.includes('now_ms')) {
      const timer = setInterval(check, NOW_POLL_MS);
      offs.push(() => clearInterval(timer));
    }
    void loadKeys(sources, keys, memory).then(
      () => {
        loaded = true;
        check();
      },
      (err: unknown) => finish(failed(`wait condition: ${(err as Error).message}`)),
    );
  });
}

async function loadKeys(sources: DeliverySources, keys: readonly string[], into: Map<string, unknown>) {
  const now = Date.now();
  for (const key of keys) {
    const entry = await sources.memory?.get(key, now);
    if (entry && !isExpired(entry.expires, now) && !into.has(key)) into.set(key, entry.value);
  }
}

/**
 * Keeps the wait's callback route open until `signal` aborts (the wait ended; the run ended). A hit is held on the
 * run under the wait's channel, keyed by the delivery; resolves null, or a failure when the route cannot open.
 */
export async function watchWebhook(
  sources: DeliverySources,
  run: Readonly<WorkflowRun>,
  wait: StepWait,
  signal: AbortSignal,
): Promise<StepResult | null> {
  const { callbacks, deliver } = sources;
  if (!callbacks || !deliver) return failed('wait webhook: no webhook listener in this process');
  const channel = wait.signal ?? '';
  let close: () => void;
  try {
    close = callbacks.open({
      path: wait.path ?? '',
      auth: wait.auth ?? { none: true },
      ...(wait.methods ? { methods: wait.methods } : {}),
      id: `${run.id}.${channel}`,
      run: run.id,
      onHit: async (payload, key) => {
        if (!(await deliver(run.id, channel, payload, `webhook:${key}`)))
          throw new Error('the waiting step takes no more deliveries (it holds one, or its run or wait ended)');
      },
    });
  } catch (err) {
    return failed(`wait webhook: ${(err as Error).message}`);
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  close();
  return null;
}
