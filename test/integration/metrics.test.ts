// The supervisor's metrics after real turns, served by the metrics listener: turns by status, tokens in and out,
// think spend by kind, queue gauges, and /readyz turning 503 once the supervisor drains.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/obs/log.js';
import { startMetricsServer } from '../../src/obs/metricsServer.js';
import { answer, startRig } from './harness.js';

describe('metrics', () => {
  it('counts turns by status and tokens by direction; /readyz is 503 after a drain', async () => {
    const rig = await startRig({
      turns: [{ content: 'ok', usage: { prompt_tokens: 120, completion_tokens: 30 } }],
      match: [
        {
          when_contains: 'reasoning module',
          content: { fine: true },
          usage: { prompt_tokens: 7, completion_tokens: 3 },
        },
        {
          when_contains: 'ponder',
          times: 1,
          tool_calls: [{ name: 'think', arguments: { prompt: 'hm' } }],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        },
      ],
    });
    const server = await startMetricsServer({
      addr: '127.0.0.1:0',
      metrics: rig.sup.metrics,
      ready: () => rig.sup.ready,
      log: createLogger({ write: () => {} }),
    });
    try {
      assert.equal((await answer(rig, 'c', 'hello')).status, 'completed');
      // Three model calls: 120 + 10 + 120 in, 30 + 5 + 30 out; the think child's 7 and 3 count apart.
      assert.equal((await answer(rig, 'c', 'ponder this')).status, 'completed');
      await rig.sup.whenIdle();
      const text = await (await fetch(`http://${server.address}/metrics`)).text();
      assert.match(text, /^agentd_turns_total\{status="completed"\} 2$/m);
      assert.match(text, /^agentd_tokens_total\{direction="in",kind="turn"\} 250$/m);
      assert.match(text, /^agentd_tokens_total\{direction="out",kind="turn"\} 65$/m);
      assert.match(text, /^agentd_tokens_total\{direction="in",kind="think"\} 7$/m);
      assert.match(text, /^agentd_turns_queued 0$/m);
      assert.match(text, /^agentd_inbox_pending 0$/m);
      assert.equal((await fetch(`http://${server.address}/readyz`)).status, 200);
      await rig.sup.drain(5_000);
      assert.equal((await fetch(`http://${server.address}/readyz`)).status, 503);
      assert.equal((await fetch(`http://${server.address}/healthz`)).status, 200);
    } finally {
      await server.close();
      await rig.close();
    }
  });
});
