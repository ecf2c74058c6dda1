// Traces, off unless configured (reference §3.4): the facade both the supervisor and the worker use. It imports
// no OpenTelemetry module itself; `loadTracer` imports the SDK (obs/otelTracer.ts) only when an endpoint is set.
import { VERSION } from '../runtime/version.js';

export type SpanAttributes = Record<string, string | number | boolean>;

/** One span in flight. */
export interface SpanHandle {
  /** The W3C traceparent naming this span: children in other processes start under it. */
  readonly traceparent: string;
  set(attributes: SpanAttributes): void;
  /** Ends it, with `error` as its ERROR status (else OK), at `endMs` (default now); a second end does nothing. */
  end(error?: string, endMs?: number): void;
}

export interface Tracer {
  /** Starts a span under `parent` (a traceparent; null: a new trace), at `startMs` (default now). */
  start(name: string, attributes: SpanAttributes, parent: string | null, startMs?: number): SpanHandle;
  /** Exports what has ended. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Flushes or shuts `tracer` down, waiting at most `boundMs`: a collector that is down or never answers must not
 * hold a turn or a stop (reference §3.4: tracing is best effort). Resolves with why it failed, or null.
 */
export async function settleTracer(
  tracer: Pick<Tracer, 'flush' | 'shutdown'>,
  action: 'flush' | 'shutdown',
  boundMs: number,
): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${action} took longer than ${boundMs} ms`), boundMs);
    timer.unref?.();
  });
  const done = tracer[action]().then(
    () => null,
    (err: unknown) => `${action} failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The tracer for `endpoint`, or null with tracing off (nothing imported then). */
export async function loadTracer(endpoint: string | null): Promise<Tracer | null> {
  if (endpoint === null) return null;
  const { openTracer } = await import('./otelTracer.js');
  return openTracer(endpoint, VERSION);
}
