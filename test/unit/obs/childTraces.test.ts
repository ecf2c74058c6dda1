// ChildTraces (reference §3.4): one message is one trace — accept, preflight, turn, and under the turn its think
// children and subagents; a compaction joins the turn before it; a think child whose turn is gone gets no trace
// context. A recording tracer stands in for the SDK (the export itself: test/integration/package/traces.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import { ChildTraces, type TracedChild } from '../../../src/obs/childTraces.js';
import type { SpanAttributes, Tracer } from '../../../src/obs/tracing.js';
import type { SpawnPayload } from '../../../src/protocol/frames.js';
import { makePayload } from '../worker/turnHarness.js';

interface Recorded {
  name: string;
  attributes: SpanAttributes;
  parent: string | null;
  traceparent: string;
  ended: { error: string | undefined } | null;
}

function recordingTracer(): Tracer & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  return {
    spans,
    start(name, attributes, parent) {
      const traceId = parent ? String(parent.split('-')[1]) : String(spans.length + 1).padStart(32, 'a');
      const traceparent = `00-${traceId}-${String(spans.length + 1).padStart(16, '0')}-01`;
      const span: Recorded = { name, attributes, parent, traceparent, ended: null };
      spans.push(span);
      const end = (error?: string): void => {
        span.ended ??= { error };
      };
      return { traceparent, set: () => {}, end };
    },
    flush: async () => {},
    shutdown: async () => {},
  };
}

const ENDPOINT = 'http://127.0.0.1:4318/v1/traces';
const traced = (): SpawnPayload => {
  const payload = makePayload('http://127.0.0.1:1');
  payload.telemetry.trace = { traceparent: '', endpoint: ENDPOINT };
  return payload;
};
const event = (id: string, ctx: string): InboxEvent => ({
  id,
  kind: 'a2a_message',
  ts: 1_000,
  principal: null,
  payload: { context_id: ctx, text: 'hi' },
});
const child = (
  node: number,
  kind: TracedChild['kind'],
  parentNode: number | null = null,
  eventId: string | null = 'e1',
): TracedChild => ({
  node,
  kind,
  ctx: 'c1',
  parentNode,
  event: eventId,
});

describe('ChildTraces', () => {
  it('puts preflight and turn under the accept span, a think child and a subagent under the turn', () => {
    const tracer = recordingTracer();
    const traces = new ChildTraces(tracer, () => 1_005);
    traces.accepted(event('e1', 'c1'));
    const accept = tracer.spans[0];
    assert.equal(accept?.name, 'accept');
    assert.equal(accept?.parent, null);
    assert.deepEqual(accept?.ended, { error: undefined });
    assert.equal(traces.turnParent('e1'), accept?.traceparent);

    const preflight = traced();
    traces.spawned(child(1, 'preflight'), preflight);
    const step = tracer.spans[1];
    assert.equal(step?.name, 'preflight');
    assert.equal(step?.parent, accept?.traceparent);
    assert.equal(preflight.telemetry.trace?.traceparent, step?.traceparent, 'its worker nests under the step');
    traces.gone(child(1, 'preflight'), null);
    assert.deepEqual(step?.ended, { error: undefined });

    // The turn's own span is the turn workers': its traceparent is in the frame already.
    const turn = traced();
    const turnSpan = tracer.start('invoke_agent', {}, traces.turnParent('e1'));
    turn.telemetry.trace = { traceparent: turnSpan.traceparent, endpoint: ENDPOINT };
    traces.spawned(child(2, 'turn'), turn);

    const think = traced();
    traces.spawned(child(3, 'think', 2), think);
    assert.equal(think.telemetry.trace?.traceparent, turnSpan.traceparent);

    const sub = traced();
    traces.spawned(child(4, 'subagent'), sub);
    const subSpan = tracer.spans.find((s) => s.name === 'invoke_agent subagent');
    assert.equal(subSpan?.parent, turnSpan.traceparent);
    assert.equal(sub.telemetry.trace?.traceparent, subSpan?.traceparent);
    traces.gone(child(4, 'subagent'), 'cancelled');
    assert.deepEqual(subSpan?.ended, { error: 'cancelled' });

    const traceIds = new Set(tracer.spans.map((s) => s.traceparent.split('-')[1]));
    assert.equal(traceIds.size, 1, 'one message, one trace');
  });

  it("keys accept spans by message: a second message queued on the conversation does not take the first's trace", () => {
    const tracer = recordingTracer();
    const traces = new ChildTraces(tracer, () => 1_005);
    traces.accepted(event('e1', 'c1'));
    traces.accepted(event('e2', 'c1'));
    const [first, second] = tracer.spans;
    // Keyed by conversation (the premise of the fix), both would answer with e2's span.
    assert.equal(traces.turnParent('e1'), first?.traceparent);
    assert.equal(traces.turnParent('e2'), second?.traceparent);
    traces.spawned(child(1, 'preflight', null, 'e1'), traced());
    assert.equal(tracer.spans.at(-1)?.parent, first?.traceparent, "e1's preflight is in e1's trace");
    assert.equal(traces.turnParent('e3'), null, 'an unknown message starts a new trace');
  });

  it('puts a compaction under the turn before it', () => {
    const tracer = recordingTracer();
    const traces = new ChildTraces(tracer, () => 0);
    const turn = traced();
    const turnSpan = tracer.start('invoke_agent', {}, null);
    turn.telemetry.trace = { traceparent: turnSpan.traceparent, endpoint: ENDPOINT };
    traces.spawned(child(1, 'turn'), turn);
    traces.gone(child(1, 'turn'), null);
    const compaction = traced();
    traces.spawned(child(2, 'compaction'), compaction);
    assert.equal(tracer.spans.at(-1)?.name, 'compaction');
    assert.equal(tracer.spans.at(-1)?.parent, turnSpan.traceparent);
  });

  it('drops the trace context of a think child whose turn is gone (no orphan trace)', () => {
    const traces = new ChildTraces(recordingTracer(), () => 0);
    const think = traced();
    assert.ok(think.telemetry.trace, 'the premise: the payload names the endpoint');
    traces.spawned(child(5, 'think', 99), think);
    assert.equal(think.telemetry.trace, undefined);
  });

  it('leaves an untraced payload alone (tracing off in the config)', () => {
    const tracer = recordingTracer();
    const traces = new ChildTraces(tracer, () => 0);
    const plain = makePayload('http://127.0.0.1:1');
    traces.spawned(child(1, 'preflight'), plain);
    assert.equal(plain.telemetry.trace, undefined);
    assert.equal(tracer.spans.length, 0);
  });
});
