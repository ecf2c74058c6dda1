import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '../../../src/obs/metrics.js';

describe('Metrics', () => {
  it('renders the Prometheus text exposition: HELP, TYPE, labelled samples, histogram buckets', () => {
    const m = new Metrics();
    m.turns.inc({ status: 'completed' });
    m.turns.inc({ status: 'completed' });
    m.tokens.inc({ direction: 'in', kind: 'turn' }, 42);
    m.storeLatency.observe({ op: 'acceptInbox' }, 0.002);
    m.gauge('agentd_turns_queued', 'Queued.', () => 3);
    const text = m.render();
    assert.ok(text.includes('# TYPE agentd_turns_total counter\nagentd_turns_total{status="completed"} 2\n'));
    assert.ok(text.includes('agentd_tokens_total{direction="in",kind="turn"} 42'));
    assert.ok(text.includes('agentd_store_op_seconds_bucket{op="acceptInbox",le="0.001"} 0'));
    assert.ok(text.includes('agentd_store_op_seconds_bucket{op="acceptInbox",le="0.0025"} 1'));
    assert.ok(text.includes('agentd_store_op_seconds_bucket{op="acceptInbox",le="+Inf"} 1'));
    assert.ok(text.includes('agentd_store_op_seconds_count{op="acceptInbox"} 1'));
    assert.ok(text.includes('# TYPE agentd_turns_queued gauge\nagentd_turns_queued 3\n'));
    assert.ok(text.endsWith('\n'));
  });
});
