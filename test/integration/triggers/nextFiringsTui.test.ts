// Next firing times in the interfaces (issue 17 Build 6): the terminal UI's `/status` shows each schedule's next
// firing, read from the real daemon over A2A (the web UI's status tab and `agentd status` print the same lines).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { submitLine } from '../../../src/client/tuiCommands.js';
import { initialState } from '../../../src/client/tuiState.js';
import { waitUntil } from '../wait.js';
import { daemon } from './startRig.js';

const YAML = `workflows:
  - name: tick
    steps:
      s: {kind: schedule, every: 1h}
      f: {kind: finish, depends_on: [s]}
`;
const dir = mkdtempSync(join(tmpdir(), 'agentd-tuistatus-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('next firings in the TUI', () => {
  it('/status lists the schedule with its next firing time', async () => {
    const { runtime, url, events } = await daemon(dir, YAML);
    try {
      await waitUntil(() => events.some((e) => e['event'] === 'start.schedule.armed'), 10_000, 'armed');
      const next = Number(events.find((e) => e['event'] === 'start.schedule.armed')?.['next_ms']);
      const got = await submitLine(new DaemonClient({ url }), initialState(null), '/status', false);
      assert.equal(got.error, undefined, got.note);
      const lines = String(got.note).split('\n');
      assert.ok(lines.includes(`next_firings: tick.s (schedule) ${new Date(next).toISOString()}`), String(got.note));
    } finally {
      await runtime.stop();
    }
  });
});
