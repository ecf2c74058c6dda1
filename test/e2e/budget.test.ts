// Budgets and metrics through the real binary: a one-shot job the budget refuses exits 5 (on_exhausted: refuse)
// or 7 (any other refusal) without calling the model; metrics_addr serves /metrics, /healthz and /readyz.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

async function jobWith(model: ScriptedModel, yaml: string) {
  const dir = tempStateDir();
  const file = join(dir, 'agentd.yaml');
  writeFileSync(file, yaml);
  return runAgentd(['--config', file, '--intelligence', model.url, '--model', 'test-model', '--prompt', 'work'], {
    env: { AGENTD_STATE_DIR: dir },
  });
}

describe('budgets and metrics in a one-shot job', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'answered' }] });
  });
  after(async () => model.close());

  it('exits 5 when the budget refuses, 7 when it fails, and never calls the model', async () => {
    const refused = await jobWith(
      model,
      'intelligence:\n  budget: {windows: [{per: hour, tokens: 100}], on_exhausted: refuse}\n',
    );
    assert.equal(refused.code, 5, refused.stderr);
    assert.equal(refused.stdout, '');
    const [event] = eventsNamed(refused, 'budget.refused');
    assert.equal(event?.reason, 'refused: budget exhausted (instance hour window)');
    const failed = await jobWith(model, 'intelligence:\n  budget: {lifetime_tokens: 100}\n');
    assert.equal(failed.code, 7, failed.stderr);
    assert.equal(eventsNamed(failed, 'budget.refused')[0]?.reason, 'lifetime token budget exhausted (instance)');
    assert.equal(model.requests.length, 0);
  });

  it('serves /metrics while the job runs and logs the bound address', async () => {
    const slow = await startScriptedModel({ turns: [{ content: 'slow answer', delay_ms: 1_500 }] });
    try {
      const dir = tempStateDir();
      const file = join(dir, 'agentd.yaml');
      writeFileSync(file, 'observability:\n  metrics_addr: 127.0.0.1:0\n');
      let scraped: Promise<string[]> | null = null;
      let listenAddr = '';
      const run = await runAgentd(['--config', file, '--intelligence', slow.url, '--model', 'm', '--prompt', 'hi'], {
        env: { AGENTD_STATE_DIR: dir },
        onEvent: (ev) => {
          if (ev.event === 'turn.spawn' && scraped === null) scraped = scrape(listenAddr);
          if (ev.event === 'metrics.listen') listenAddr = String(ev.addr);
        },
      });
      assert.equal(run.code, 0, run.stderr);
      const pending = scraped as Promise<string[]> | null;
      assert.ok(pending, 'scraped while the turn ran');
      const [metrics, health, ready] = await pending;
      assert.match(String(metrics), /# TYPE agentd_turns_total counter/);
      assert.match(String(metrics), /agentd_turns_running 1/);
      assert.match(String(metrics), /agentd_store_op_seconds_count\{op="inbox.accept"\} 1/);
      assert.equal(health, '200 ok');
      assert.equal(ready, '200 ready');
    } finally {
      await slow.close();
    }
  });

  it('exits 2 naming the key when the metrics address cannot be bound', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = taken.address() as AddressInfo;
      const run = await jobWith(model, `observability:\n  metrics_addr: 127.0.0.1:${port}\n`);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /observability\.metrics_addr: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      taken.close();
    }
  });
});

async function scrape(addr: string): Promise<string[]> {
  const get = async (path: string) => {
    const res = await fetch(`http://${addr}${path}`);
    return `${res.status} ${(await res.text()).trim()}`;
  };
  const metrics = await fetch(`http://${addr}/metrics`).then((r) => r.text());
  return [metrics, await get('/healthz'), await get('/readyz')];
}
