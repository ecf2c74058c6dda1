// Start shedding under pressure over the real runtime (producers reference §3.2 step 1, §3.7): while the gate
// sheds, a schedule's firings start nothing (`start.shed`) and a webhook answers 429 `shedding: disk`; once the
// pressure clears the same schedule starts runs again (the premise: it was the pressure, not the schedule).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PressureReading } from '../../../src/supervisor/pressure.js';
import { waitUntil } from '../wait.js';
import { daemon, post, runsOf } from './startRig.js';

const MB = 1_000_000;
const YAML = `
workflows:
  - name: tick
    steps:
      s: {kind: schedule, every: 200ms}
      f: {kind: finish, depends_on: [s], output: ok}
  - name: hook
    steps:
      h: {kind: webhook, path: /hooks/h, auth: {none: true}, idempotency: false}
      f: {kind: finish, depends_on: [h], output: ok}
`;

describe('start shedding under pressure', { timeout: 60_000 }, () => {
  it('sheds schedule firings and webhook deliveries while the gate sheds, and fires again once it clears', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-shed-'));
    const reading: PressureReading = { diskFreeBytes: 50 * MB, memory: null };
    const { runtime, url, events } = await daemon(
      dir,
      YAML,
      { AGENTD_STORE_MIN_FREE: '100MB' },
      { pressureProbe: async () => ({ ...reading }) },
    );
    const shedOf = (kind: string) => events.filter((e) => e['event'] === 'start.shed' && e['kind'] === kind);
    try {
      await waitUntil(() => shedOf('schedule').length >= 2, 10_000, 'two schedule firings shed');
      assert.equal(runsOf(events, 'tick').length, 0, 'a shed firing starts nothing');
      assert.equal(shedOf('schedule')[0]?.['cause'], 'disk');
      const hit = await post(`${url}/hooks/h`, '{}');
      assert.equal(hit.status, 429);
      assert.equal(hit.headers.get('retry-after'), '30');
      assert.deepEqual(await hit.json(), { error: 'shedding: disk' });
      assert.equal(runsOf(events, 'hook').length, 0);

      reading.diskFreeBytes = 500 * MB;
      await waitUntil(() => runsOf(events, 'tick').length >= 1, 15_000, 'a scheduled run once the pressure cleared');
      assert.equal((await post(`${url}/hooks/h`, '{}')).status, 202);
    } finally {
      await runtime.stop();
    }
  });
});
