// A schedule's overlap policy over real runs (issue 17 Build 2): a firing while the node's last run is live is
// queued behind it (`queue`, the default), skipped (`skip`) or replaces it (`cancel_previous`). Each run here waits
// on a signal, so it stays live until the test sends one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, runsOf } from './startRig.js';

const node = (name: string, overlap: string) => `
  - name: ${name}
    concurrency: {max_runs: 4}
    steps:
      s: {kind: schedule, every: 200ms, catch_up: none${overlap === '' ? '' : `, overlap: ${overlap}`}}
      w: {kind: wait, depends_on: [s], on: signal, signal: ${name}-go, timeout: 60s}
      f: {kind: finish, depends_on: [w]}`;

const dir = mkdtempSync(join(tmpdir(), 'agentd-overlap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('schedule overlap', () => {
  it('queue (default) runs one at a time, skip skips, cancel_previous replaces the live run', async () => {
    const yaml = `workflows:${node('queued', '')}${node('skipper', 'skip')}${node('replacer', 'cancel_previous')}\n`;
    const { runtime, events, workflows } = await daemon(dir, yaml);
    const desk = workflows.desk;
    assert.ok(desk);
    const liveOf = (w: string) => desk.engine.live().filter((r) => r.workflow === w).length;
    try {
      const fired = (trigger: string) =>
        events.filter((e) => e['event'] === 'start.fired' && e['trigger'] === trigger).length;
      await waitUntil(() => fired('queued.s') >= 3 && fired('replacer.s') >= 3, 20_000, 'three firings each');
      assert.equal(runsOf(events, 'queued').length, 1, 'queue: one run live, the next firings wait behind it');
      assert.equal(liveOf('queued'), 1);
      assert.ok(events.some((e) => e['event'] === 'start.queued' && e['workflow'] === 'queued'));
      assert.equal(runsOf(events, 'skipper').length, 1, 'skip: no second run while the first is live');
      assert.ok(
        events.some((e) => e['event'] === 'start.schedule.skipped' && e['trigger'] === 'skipper.s'),
        'skip: the firing is logged as skipped',
      );
      assert.equal(liveOf('replacer'), 1, 'cancel_previous: one live run, the newest');
      const replaced = doneOf(events, 'replacer').map((e) => e['status']);
      assert.ok(replaced.length >= 2 && replaced.every((s) => s === 'cancelled'), `replaced: ${replaced}`);

      // The queued run's end lets the next queued firing start: one after another, never two at once.
      await desk.signal('queued-go', null, 'go-1');
      await waitUntil(() => runsOf(events, 'queued').length === 2, 10_000, 'the next queued firing started');
      assert.equal(liveOf('queued'), 1);
      assert.equal(doneOf(events, 'queued')[0]?.['status'], 'completed');
    } finally {
      for (const run of desk.engine.live()) await desk.engine.cancel(run.id, 'test over');
      await runtime.stop();
    }
  });
});
