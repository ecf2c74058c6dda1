import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '../../../src/obs/metrics.js';

describe('Metrics', () => {
  it('renders the Prometheus text exposition: HELP, TYPE, labelled samples, histogram buckets', async () => {
    const m = new Metrics();
    m.turns.inc({ status: 'completed' });
    m.turns.inc({ status: 'completed' });
    m.tokens.inc({ direction: 'in', kind: 'turn' }, 42);
    m.storeLatency.observe({ op: 'inbox.accept' }, 0.002);
    m.gauge('agentd_turns_queued', 'Queued.', () => 3);
    const text = await m.render();
    assert.match(text, /# TYPE agentd_turns_total counter\nagentd_turns_total\{status="completed"\} 2\n/);
    assert.match(text, /^agentd_tokens_total\{direction="in",kind="turn"\} 42$/m);
    assert.match(text, /^agentd_store_op_seconds_bucket\{le="0\.001",op="inbox\.accept"\} 0$/m);
    assert.match(text, /^agentd_store_op_seconds_bucket\{le="0\.0025",op="inbox\.accept"\} 1$/m);
    assert.match(text, /^agentd_store_op_seconds_bucket\{le="\+Inf",op="inbox\.accept"\} 1$/m);
    assert.match(text, /^agentd_store_op_seconds_count\{op="inbox\.accept"\} 1$/m);
    assert.match(text, /# TYPE agentd_turns_queued gauge\nagentd_turns_queued 3\n/);
    assert.ok(text.endsWith('\n'));
  });

  it('times commits apart from reads, and keeps the latency histograms', async () => {
    const m = new Metrics();
    m.storeLatency.observe({ op: 'inbox.complete' }, 0.004);
    m.storeLatency.observe({ op: 'inbox.find' }, 0.004);
    m.turnDuration.observe({ status: 'completed' }, 1.2);
    m.modelLatency.observe({}, 0.3);
    m.toolLatency.observe({ tool: 'add' }, 0.02);
    const text = await m.render();
    assert.match(text, /^agentd_store_commit_seconds_count\{op="inbox\.complete"\} 1$/m);
    assert.doesNotMatch(text, /^agentd_store_commit_seconds_count\{op="inbox\.find"\}/m);
    assert.match(text, /^agentd_turn_duration_seconds_count\{status="completed"\} 1$/m);
    assert.match(text, /^agentd_model_call_seconds_count 1$/m);
    assert.match(text, /^agentd_tool_call_seconds_count\{tool="add"\} 1$/m);
  });

  it('adds the process and Node metrics, and two instances in one process each render them', async () => {
    const [a, b] = [new Metrics(), new Metrics()];
    for (const text of [await a.render(), await b.render()]) {
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
      }
      assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
      assert.match(text, /^# TYPE nodejs_heap_size_used_bytes gauge$/m);
    }
  });

  it('a gauge registered again replaces the earlier reader', async () => {
    const m = new Metrics();
    m.gauge('agentd_config_generation', 'Configs.', () => 1);
    m.gauge('agentd_config_generation', 'Configs.', () => 2);
    assert.match(await m.render(), /^agentd_config_generation 2$/m);
  });
});
