// ShedLog: a flood of shed connections is at most one `a2a.connection.shed` line per reason per window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ShedLog } from '../../../src/a2a/shedLog.js';
import { createLogger } from '../../../src/obs/log.js';
import { waitUntil } from '../../integration/wait.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ShedLog', () => {
  it('never writes two lines for one reason closer than the window, across the window edge', async () => {
    const times: number[] = [];
    const log = createLogger({ write: () => times.push(Date.now()) });
    const shed = new ShedLog(log, 300);
    shed.count('evicted', 1);
    await sleep(200);
    shed.count('evicted', 2);
    await sleep(150);
    // Premise: the window's flush wrote the pending count at ~300 ms; a window that is not re-armed by that
    // flush writes this one at once (~350 ms), 50 ms after the previous line.
    shed.count('evicted', 3);
    await waitUntil(() => times.length === 3, 5_000, 'the last line, a window after the pending one');
    for (let i = 1; i < times.length; i += 1) {
      assert.ok((times[i] ?? 0) - (times[i - 1] ?? 0) >= 290, `line ${i} follows the previous by a window`);
    }
  });

  it('sums a burst into one line per reason', async () => {
    const lines: string[] = [];
    const shed = new ShedLog(createLogger({ write: (line) => lines.push(line) }), 100);
    for (let i = 0; i < 50; i += 1) shed.count(i % 2 === 0 ? 'refused' : 'header_timeout', i);
    await waitUntil(() => lines.length >= 3, 5_000, 'the window end');
    await sleep(150);
    const counts = lines.map((line) => JSON.parse(line) as { reason: string; shed: number });
    assert.equal(lines.length, 3);
    assert.equal(
      counts.reduce((sum, line) => sum + line.shed, 0),
      50,
    );
  });
});
