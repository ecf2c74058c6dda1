import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Config } from '../../../src/config/types.js';
import { DaemonError } from '../../../src/errors.js';
import { createLogger } from '../../../src/obs/log.js';
import { Metrics } from '../../../src/obs/metrics.js';
import { liveConfig } from '../../../src/runtime/liveConfig.js';
import { reloader } from '../../../src/runtime/reload.js';

const config = (model: string, path = '/state') =>
  ({ intelligence: { model }, store: { kind: 'sqlite', path } }) as unknown as Config;

function setup(initial: Config) {
  const live = liveConfig(initial);
  const events: Array<Record<string, unknown>> = [];
  const metrics = new Metrics();
  let next: () => Config = () => initial;
  const applied: string[][] = [];
  const stop = { started: false };
  const r = reloader({
    live,
    load: () => next(),
    settle: (c) => c,
    applied: (changed) => applied.push([...changed]),
    stopping: () => stop.started,
    log: createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) }),
    metrics,
  });
  return { live, events, metrics, applied, r, stop, set: (load: () => Config) => (next = load) };
}

describe('reloader', () => {
  // Before the reloader asked whether a stop had started, a late SIGHUP or file change swapped the config (and
  // reconnected MCP servers) under a draining instance.
  it('refuses once a stop started: the config stays', () => {
    const t = setup(config('old'));
    t.set(() => config('new'));
    t.stop.started = true;
    assert.deepEqual(t.r.reload('watch'), { result: 'stopping', generation: 1 });
    assert.equal(t.live.view.intelligence.model, 'old');
    assert.deepEqual(t.applied, []);
    assert.deepEqual(
      t.events.map((e) => e.event),
      ['config.reload.stopping'],
    );
  });

  it('applies a valid diff in one swap and counts the generation', async () => {
    const t = setup(config('old'));
    t.set(() => config('new'));
    assert.deepEqual(t.r.reload('signal'), { result: 'applied', generation: 2, changed: ['intelligence.model'] });
    assert.equal(t.live.view.intelligence.model, 'new');
    assert.deepEqual(t.applied, [['intelligence.model']]);
    assert.match(await t.metrics.render(), /^agentd_config_reloads_total\{result="applied"\} 1$/m);
    assert.match(await t.metrics.render(), /^agentd_config_generation 2$/m);
  });

  it('keeps the running config on an invalid file or a restart-only change, and says why', async () => {
    const t = setup(config('old'));
    t.set(() => {
      throw new DaemonError('config_invalid', "agent.yaml:3: unknown key 'agent.nmae'");
    });
    assert.deepEqual(t.r.reload('operator'), {
      result: 'invalid',
      generation: 1,
      error: "agent.yaml:3: unknown key 'agent.nmae'",
    });
    t.set(() => config('new', '/elsewhere'));
    assert.deepEqual(t.r.reload('watch'), { result: 'restart_required', generation: 1, paths: ['store.path'] });
    assert.equal(t.live.view.intelligence.model, 'old', 'the model change in the refused diff did not apply');
    assert.deepEqual(t.applied, []);
    assert.match(await t.metrics.render(), /^agentd_config_reloads_total\{result="rejected"\} 2$/m);
    const names = t.events.map((e) => e.event);
    assert.deepEqual(names, ['config.reload.invalid', 'config.reload.restart_required']);
  });

  it('an unchanged config is neither applied nor rejected', async () => {
    const t = setup(config('same'));
    t.set(() => config('same'));
    assert.deepEqual(t.r.reload('api'), { result: 'unchanged', generation: 1 });
    assert.match(await t.metrics.render(), /^agentd_config_reloads_total\{result="other"\} 1$/m);
  });
});
