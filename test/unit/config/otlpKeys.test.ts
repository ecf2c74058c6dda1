// observability.otlp_endpoint (reference §3.4): an http(s) URL or null, taken from the standard OTEL_* variables
// unless they switch the SDK or the traces exporter off; a change takes a restart (the tracer is built once).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRestartOnly } from '../../../src/config/reloadDiff.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const endpointOf = (env: Record<string, string>) => compileIn(tempDir(), { env }).observability.otlp_endpoint;

describe('observability.otlp_endpoint', () => {
  it('refuses a value that is not an http(s) URL, naming the key and the line', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'agent.yaml', 'observability:\n  otlp_endpoint: localhost:4318\n');
    assert.match(
      compileError(dir, { files: [file] }),
      /agent\.yaml:2.*otlp_endpoint.*not an http:\/\/ or https:\/\/ URL/,
    );
    const good = writeConfig(dir, 'good.yaml', 'observability:\n  otlp_endpoint: http://127.0.0.1:4318\n');
    assert.equal(compileIn(dir, { files: [good] }).observability.otlp_endpoint, 'http://127.0.0.1:4318');
  });

  it('follows OTEL_EXPORTER_OTLP_ENDPOINT unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    const traces = 'http://127.0.0.1:4318/v1/traces';
    // The premise: the variable alone turns tracing on.
    assert.equal(endpointOf(on), traces);
    assert.equal(endpointOf({ ...on, OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(endpointOf({ ...on, OTEL_SDK_DISABLED: 'false' }), traces);
    assert.equal(endpointOf({ ...on, OTEL_TRACES_EXPORTER: 'none' }), null);
    assert.equal(endpointOf({ ...on, OTEL_TRACES_EXPORTER: 'otlp' }), traces);
  });

  it('takes a traces endpoint as is and adds v1/traces to the base endpoint only, as the OTLP spec says', () => {
    // A per-signal URL with a path of its own: before, `/v1/traces` was stripped and added back to any value.
    const custom = 'https://otel.example.com/ingest/traces';
    assert.equal(endpointOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: custom }), custom);
    assert.equal(
      endpointOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: custom, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' }),
      custom,
      'the traces variable wins',
    );
    assert.equal(endpointOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/base/' }), 'http://c:4318/base/v1/traces');
    const dir = tempDir();
    const file = writeConfig(dir, 'agent.yaml', `observability:\n  otlp_endpoint: ${custom}\n`);
    assert.equal(compileIn(dir, { files: [file] }).observability.otlp_endpoint, custom);
  });

  it('is restart-only', () => {
    assert.equal(isRestartOnly('observability.otlp_endpoint'), true);
  });
});
