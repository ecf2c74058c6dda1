// /metrics on prom-client after a real turn with a tool round: every metric name agentd served before the move
// still appears, beside the process and Node metrics and the latency histograms (turn, model call, tool, commit).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import { silentLogger } from '../../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../wait.js';

/** Every name the hand-written exposition served (git grep of src/ before prom-client). */
const NAMES_BEFORE = [
  'agentd_budget_refusals_total',
  'agentd_budget_waits_total',
  'agentd_compactions_total',
  'agentd_config_generation',
  'agentd_config_reloads_total',
  'agentd_disk_free_bytes',
  'agentd_inbox_pending',
  'agentd_pressure_level',
  'agentd_store_op_seconds',
  'agentd_subagent_refusals_total',
  'agentd_subagent_spawns_total',
  'agentd_subagents_live',
  'agentd_tokens_total',
  'agentd_turns_queued',
  'agentd_turns_running',
  'agentd_turns_total',
];

describe('/metrics', () => {
  let model: ScriptedModel;
  const log = join(mkdtempSync(join(tmpdir(), 'agentd-metrics-')), 'calls.log');
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'done' }],
      match: [
        {
          when_contains: 'look it up',
          times: 1,
          tool_calls: [
            { name: 'lookup_order', arguments: { order: 'ORD-1', log } },
            // A name the model made up: labelled by its own name it would add a label value per invention.
            { name: 'made_up_7f3a', arguments: {} },
          ],
        },
      ],
    });
  });
  after(async () => model.close());

  it('keeps every name, adds process and Node metrics and the latency histograms', async () => {
    const agent = await createAgent({
      intelligence: model.url,
      store: mkdtempSync(join(tmpdir(), 'agentd-metrics-')),
      config: { env: {} },
      toolsModule: new URL('../../fixtures/definedTools.js', import.meta.url),
      log: silentLogger,
    });
    try {
      const { metricsAddress } = await agent.serve({ metrics: '127.0.0.1:0' });
      const run = await agent.run('look it up');
      assert.equal((await within(run.result, 30_000, 'the turn')).status, 'completed');
      const res = await fetch(`http://${metricsAddress}/metrics`);
      assert.match(String(res.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      for (const name of NAMES_BEFORE) assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
      }
      assert.match(text, /^agentd_turn_duration_seconds_count\{status="completed"\} 1$/m);
      assert.match(text, /^agentd_model_call_seconds_count 2$/m);
      assert.match(text, /^agentd_tool_call_seconds_count\{tool="lookup_order"\} 1$/m);
      assert.match(text, /^agentd_tool_call_seconds_count\{tool="_unoffered"\} 1$/m);
      assert.doesNotMatch(text, /made_up_7f3a/);
      assert.match(text, /^agentd_store_commit_seconds_count\{op="inbox\.accept"\} 1$/m);
      assert.match(text, /^agentd_store_commit_seconds_count\{op="inbox\.complete"\} 1$/m);
    } finally {
      await agent.close();
    }
  });
});
