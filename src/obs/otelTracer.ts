// The OpenTelemetry SDK behind agentd's traces (reference §3.4): a tracer provider exporting OTLP/HTTP JSON to the
// traces URL `observability.otlp_endpoint` names, as is (the OTLP exporter spec's rule for a traces endpoint).
// Imported only (dynamically, by obs/tracing.ts) when tracing is on, in the supervisor and in a worker whose spawn
// frame carries a trace context: with tracing off no OTel module is loaded at all.
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SpanHandle, Tracer } from './tracing.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The parent context a W3C `traceparent` names, or the root. */
function parentOf(traceparent: string | null) {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return ROOT_CONTEXT;
  const flags = Number.parseInt(m[3] ?? '01', 16) & TraceFlags.SAMPLED;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: m[1] ?? '',
    spanId: m[2] ?? '',
    traceFlags: flags,
    isRemote: true,
  });
}

/**
 * The exporter, remembering the first export that failed: a batch exported on the processor's schedule fails
 * silently in the SDK, so the shutdown reports it (the stop logs it once as `trace.export_failed`).
 */
function noticingFailures(exporter: SpanExporter): { exporter: SpanExporter; failure: () => string | null } {
  let failure: string | null = null;
  const noticing: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        // 0 is ExportResultCode.SUCCESS (@opentelemetry/core).
        if (result.code !== 0) failure ??= result.error?.message ?? 'the collector refused the export';
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
  return { exporter: noticing, failure: () => failure };
}

/** A tracer exporting to the traces URL `endpoint` as `service.name=agentd`. */
export function openTracer(endpoint: string, version: string): Tracer {
  // A collector that never answers gives up well before the OTel default of 10 s (callers bound their wait too).
  const { exporter, failure } = noticingFailures(new OTLPTraceExporter({ url: endpoint, timeoutMillis: 5_000 }));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agentd', 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer('agentd', version);
  return {
    start(name: string, attributes: Attributes, parent: string | null, startMs?: number): SpanHandle {
      const options = { kind: SpanKind.INTERNAL, attributes, ...(startMs === undefined ? {} : { startTime: startMs }) };
      const span = tracer.startSpan(name, options, parentOf(parent));
      const { traceId, spanId, traceFlags } = span.spanContext();
      const sampled = (traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
      return {
        traceparent: `00-${traceId}-${spanId}-${sampled}`,
        set: (more) => void span.setAttributes(more),
        end: (error, endMs) => {
          if (!span.isRecording()) return; // ended already: the first end's status stands
          span.setStatus(error ? { code: SpanStatusCode.ERROR, message: error } : { code: SpanStatusCode.OK });
          span.end(endMs);
        },
      };
    },
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      const failed = failure();
      if (failed) throw new Error(`an export failed: ${failed}`);
    },
  };
}
