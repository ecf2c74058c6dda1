// telemetry(): only a traced child (a conversation turn, whose span the supervisor opens) carries a trace context;
// think children and subagents carry none, so they never start orphan traces (reference §3.4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { telemetry } from '../../../src/supervisor/turnSnapshot.js';

const config = compileConfig({
  files: [],
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
  flags: {},
  cwd: process.cwd(),
});

describe('telemetry', () => {
  it('gives a turn a trace context and an untraced child none', () => {
    // The premise: with tracing on, a turn's telemetry names the endpoint its spans go to.
    assert.deepEqual(telemetry(config, 'turn/root').trace, { traceparent: '', endpoint: 'http://127.0.0.1:4318/v1/traces' });
    assert.equal(telemetry(config, 'think/root', false).trace, undefined);
  });
});
