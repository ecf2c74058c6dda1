// startRuntime over a real store, listeners and workers: one start order, and a failed start leaves nothing up.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-runtime-'));
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const config = compileConfig({
    files: [],
    env: { AGENTD_STATE_DIR: dir, AGENTD_A2A_LISTEN: 'http://127.0.0.1:0' },
    flags: { intelligence: 'http://127.0.0.1:9', model: 'm' },
    cwd: dir,
  });
  const named = (name: string) => events.filter((e) => e.event === name);
  return { config, log, events, named };
}

describe('startRuntime', () => {
  it('starts store, metrics, the A2A producer, then restores; a second runtime opens the store once stopped', async () => {
    const { config, log, events, named } = setup();
    const runtime = await startRuntime(config, { log, metrics: '127.0.0.1:0', warmWorkers: 0 });
    const order = events
      .map((e) => e.event)
      .filter((e) => ['store.opened', 'metrics.listen', 'a2a.listen', 'restore.done'].includes(String(e)));
    assert.deepEqual(order, ['store.opened', 'metrics.listen', 'a2a.listen', 'restore.done']);
    assert.deepEqual(
      runtime.producers.map((p) => p.name),
      [
        'agent_messages',
        'side_tasks',
        'goal_continuations',
        'wake_notes',
        'subagent_results',
        'workflows',
        'a2a',
        'journal_retention',
        'finish_exit',
      ],
    );
    await runtime.stop();
    const url = String(named('a2a.listen')[0]?.bound);
    await assert.rejects(fetch(`${url}/.well-known/agent-card.json`), 'the listener is closed');
    const again = await startRuntime(config, { log, warmWorkers: 0 });
    await again.stop();
  });

  it('a producer that fails to start stops the ones before it, the listeners and the store, and rethrows', async () => {
    const { config, log, named } = setup();
    const failing = {
      name: 'broken',
      start: () => {
        throw new Error('broken cannot start');
      },
      stop: () => {},
    };
    await assert.rejects(
      startRuntime(config, { log, metrics: '127.0.0.1:0', producers: [failing] }),
      /broken cannot start/,
    );
    const url = String(named('a2a.listen')[0]?.bound);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, 'premise: the A2A producer had started');
    await assert.rejects(fetch(`${url}/.well-known/agent-card.json`), 'the A2A listener is closed again');
    const metricsAddr = String(named('metrics.listen')[0]?.addr);
    await assert.rejects(fetch(`http://${metricsAddr}/healthz`), 'the metrics listener is closed again');
    assert.equal(named('restore.done').length, 0, 'nothing was restored');
    const after = await startRuntime(config, { log, warmWorkers: 0 });
    await after.stop();
  });
});
