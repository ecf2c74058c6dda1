// The pressure gate over a real runtime (SQLite store, worker processes, the scripted model), with the probe
// injected: under `shed` a message is accepted but no worker starts; when space returns the queued turn runs; a
// turn already running when pressure rises finishes. Without the gate the message would run at once (the last
// case's first message is the premise).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import type { PressureReading } from '../../../src/supervisor/pressure.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../wait.js';

const MB = 1_000_000;

async function setup(freeBytes: number) {
  const model = await startScriptedModel({
    turns: [{ content: 'answered' }],
    match: [{ when_contains: 'long one', content: 'long answered', delay_ms: 3_000 }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'agentd-pressure-'));
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const config = compileConfig({
    files: [],
    env: { AGENTD_STATE_DIR: dir, AGENTD_STORE_MIN_FREE: '100MB', AGENTD_AGENT_PREFLIGHT: 'never' },
    flags: { intelligence: model.url, model: 'm' },
    cwd: dir,
  });
  const reading: PressureReading = { diskFreeBytes: freeBytes, memory: null };
  const runtime = await startRuntime(config, { log, warmWorkers: 0, pressureProbe: async () => ({ ...reading }) });
  const named = (name: string) => events.filter((e) => e.event === name);
  const send = (text: string) =>
    runtime.supervisor.accept({ kind: 'timer', context_id: text.replaceAll(' ', '-'), text, principal: 'operator' });
  const close = async () => {
    await runtime.stop();
    await model.close();
  };
  return { runtime, model, reading, named, send, close };
}

describe('the pressure gate', { timeout: 60_000 }, () => {
  it('shed: a message is accepted but no worker starts; space returns: pressure.cleared and the turn runs', async () => {
    const t = await setup(50 * MB);
    try {
      const [shed] = t.named('pressure.shed');
      assert.deepEqual(
        { level: shed?.level, cause: shed?.cause, free: shed?.disk_free_bytes },
        { level: 'shed', cause: 'disk', free: 50 * MB },
      );
      const accepted = await t.send('hello there');
      assert.equal(accepted.created, true);
      await new Promise((r) => setTimeout(r, 2_500));
      assert.equal(t.named('turn.spawn').length, 0, 'no worker starts while shedding');
      assert.equal(t.model.requests.length, 0);
      assert.equal(t.runtime.supervisor.status().pressure, 'shed');
      assert.equal(t.runtime.supervisor.status().queued, 1, 'the job keeps its place');
      assert.equal(t.runtime.supervisor.ready, false, '/readyz says not ready');
      assert.match(await t.runtime.supervisor.metrics.render(), /^agentd_pressure_level 2$/m);
      assert.equal(t.named('pressure.shed').length, 1, 'the transition is logged once');
      t.reading.diskFreeBytes = 10_000 * MB;
      const outcome = await within(t.runtime.supervisor.outcomeOf(accepted.record.id), 20_000, 'the queued turn');
      assert.equal(outcome.reply, 'answered');
      assert.equal(t.named('pressure.cleared')[0]?.cause, 'disk');
      assert.equal(t.runtime.supervisor.ready, true);
    } finally {
      await t.close();
    }
  });

  it('a running turn is never touched; warn lets ordinary messages run', async () => {
    const t = await setup(10_000 * MB);
    try {
      const long = await t.send('long one');
      await waitUntil(() => t.model.requests.length === 1, 10_000, 'the long turn asks the model');
      t.reading.diskFreeBytes = 50 * MB;
      await waitUntil(() => t.named('pressure.shed').length === 1, 10_000, 'pressure.shed');
      const outcome = await within(t.runtime.supervisor.outcomeOf(long.record.id), 20_000, 'the running turn');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'long answered');
      t.reading.diskFreeBytes = 150 * MB;
      await waitUntil(() => t.named('pressure.warn').length === 1, 10_000, 'pressure.warn');
      const plain = await t.send('plain one');
      const answered = await within(t.runtime.supervisor.outcomeOf(plain.record.id), 20_000, 'a turn under warn');
      assert.equal(answered.reply, 'answered');
    } finally {
      await t.close();
    }
  });
});
