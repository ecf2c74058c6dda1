// runtime.triggers.schedules over the real runtime (the supervisor's timer service, a SQLite file, the real clock):
// a schedule fires in the same life, its next firing is in status, and a restart keeps its stored occurrence.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import type { FireTarget } from '../../../src/triggers/fireTarget.js';
import { waitUntil } from '../wait.js';

async function runtimeOn(dir: string) {
  const flags = { intelligence: 'http://127.0.0.1:9', model: 'm' };
  const config = compileConfig({ files: [], env: { AGENTD_STATE_DIR: dir }, flags, cwd: dir });
  return startRuntime(config, { log: createLogger({ level: 'error', write: () => {} }), warmWorkers: 0 });
}

describe('runtime.triggers.schedules', () => {
  it('fires an every schedule in the same life and keeps its stored next occurrence across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-rsched-'));
    const fired: number[] = [];
    const target: FireTarget = {
      fire: async (_id, occurrence) => {
        fired.push(occurrence);
      },
    };
    const first = await runtimeOn(dir);
    try {
      await first.triggers.schedules.add({ id: 'w.tick', schedule: { every: '200ms' }, principal: null }, target);
      await waitUntil(() => fired.length >= 2, 10_000, 'two firings');
      assert.equal((fired[1] ?? 0) - (fired[0] ?? 0), 200, 'on the grid');
      const status = first.supervisor.status() as {
        timers: { armed: number; next: Array<{ owner: string; due: number }> };
        next_firings: Array<{ trigger: string; next_ms: number; at: string }>;
      };
      assert.equal(status.timers.next[0]?.owner, 'trigger:w.tick');
      const [next] = status.next_firings;
      assert.equal(next?.trigger, 'w.tick', 'status names the trigger and its next firing');
      assert.equal(next?.next_ms, status.timers.next[0]?.due);
      assert.equal(next?.at, new Date(next?.next_ms ?? 0).toISOString());
    } finally {
      await first.stop();
    }
    await new Promise((r) => setTimeout(r, 300)); // down past the stored occurrence: it is due at the restart
    const stored = await (async () => {
      const again = await runtimeOn(dir);
      try {
        // The store's row (a past one is held unarmed until its trigger is added again, so not the armed list).
        const before = (await again.store.timers.list()).find((t) => t.owner === 'trigger:w.tick')?.due;
        await again.triggers.schedules.add({ id: 'w.tick', schedule: { every: '1h' }, principal: null }, target);
        return { before, after: again.supervisor.timers.list('trigger:w.tick')[0]?.due };
      } finally {
        await again.stop();
      }
    })();
    assert.ok(stored.before !== undefined, 'the stored occurrence survived the restart');
    assert.ok((stored.after ?? 0) > Date.now() + 50 * 60_000, 'an edited schedule is armed afresh');
  });
});
