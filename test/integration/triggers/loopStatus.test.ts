// A loop's next iteration on the durable timer service, visible where the schedules' are (issue 17 item 4): the
// supervisor's status, the A2A status call (`agentd status`, JSON and text), computed from the stored end of the
// last run so a restart shows the same time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAgentd } from '../../e2e/harness.js';
import { waitUntil } from '../wait.js';
import { daemon, doneOf } from './startRig.js';

const YAML = `workflows:
  - name: poller
    steps:
      s: {kind: loop, interval: 1h, max_iterations: 5}
      f: {kind: finish, depends_on: [s], output: polled}
`;
const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'agentd-loopstat-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Firing {
  trigger: string;
  kind: string;
  next_ms: number;
  at: string;
}
const firingsOf = (status: unknown): Firing[] => (status as { next_firings?: Firing[] }).next_firings ?? [];

describe('loop next firing in status', () => {
  it('shows the next iteration in status and over A2A, stored, and the same after a restart', async () => {
    const first = await daemon(dir, YAML);
    let next: Firing | undefined;
    try {
      await waitUntil(() => doneOf(first.events, 'poller').length === 1, 10_000, 'iteration 1 ran');
      await waitUntil(
        () => firingsOf(first.runtime.supervisor.status()).some((f) => f.kind === 'loop'),
        5_000,
        'the next iteration is armed',
      );
      next = firingsOf(first.runtime.supervisor.status()).find((f) => f.kind === 'loop');
      assert.equal(next?.trigger, 'poller.s');
      const ended = Date.parse(String(doneOf(first.events, 'poller')[0]?.['ts']));
      assert.ok(Math.abs((next?.next_ms ?? 0) - (ended + HOUR)) < 1_000, 'an hour after the run ended');
      const rows = await first.runtime.store.timers.list();
      assert.ok(
        rows.some((t) => t.kind === 'loop' && t.due === next?.next_ms),
        'a stored row (loops were in-memory timeouts before, absent from status)',
      );
      const json = await runAgentd(['status', '--json', '--url', first.url]);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(
        firingsOf(JSON.parse(json.stdout)).find((f) => f.kind === 'loop'),
        next,
      );
      const text = await runAgentd(['status', '--url', first.url]);
      assert.match(text.stdout, new RegExp(`next_firings: poller\\.s \\(loop\\) ${next?.at.replace(/\./g, '\\.')}`));
    } finally {
      await first.runtime.stop();
    }
    const second = await daemon(dir, YAML);
    try {
      await waitUntil(
        () => firingsOf(second.runtime.supervisor.status()).some((f) => f.kind === 'loop'),
        5_000,
        'the loop is armed again',
      );
      const again = firingsOf(second.runtime.supervisor.status()).find((f) => f.kind === 'loop');
      assert.equal(again?.next_ms, next?.next_ms, 'from the stored run, not from the restart');
      assert.equal(doneOf(second.events, 'poller').length, 0, 'no iteration at boot');
    } finally {
      await second.runtime.stop();
    }
  });
});
