// telemetry(): with tracing on every child's names the traces endpoint; which trace it joins is set at spawn by the
// child table (obs/childTraces.ts, test/unit/obs/childTraces.test.ts), which drops it when no parent is in reach.
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
  it('names the endpoint for every child with tracing on, and none with it off', () => {
    const trace = { traceparent: '', endpoint: 'http://127.0.0.1:4318/v1/traces' };
    assert.deepEqual(telemetry(config, 'turn/root').trace, trace);
    assert.deepEqual(telemetry(config, 'think/root').trace, trace);
    const off = compileConfig({ files: [], env: {}, flags: {}, cwd: process.cwd() });
    assert.equal(telemetry(off, 'turn/root').trace, undefined);
  });
});
