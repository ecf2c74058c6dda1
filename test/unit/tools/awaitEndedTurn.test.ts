// An await whose turn ends while it still reads the store: its watch and its memory subscription end with the turn.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { openStore } from '../../../src/store/openStore.js';
import type { Store } from '../../../src/store/store.js';
import type { LiveTurn } from '../../../src/supervisor/turnWorkers.js';
import { awaitCondition } from '../../../src/tools/handlers/waiting.js';
import { buildToolHost, type HostCapabilities } from '../../../src/tools/host.js';
import { unparkAll } from '../../../src/tools/serving.js';
import type { ToolCaller } from '../../../src/tools/toolOutcome.js';
import { turnEnd } from '../../../src/tools/turnEnd.js';
import { within } from '../../integration/wait.js';

/** The real SQLite memory, with reads held until `release()` and its subscriptions counted. */
function heldMemory(store: Store) {
  const real = store.memory;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { subscribed: 0, reading: 0 };
  const memory = {
    get: async (key: string, now: number) => {
      state.reading++;
      await gate;
      return real.get(key, now);
    },
    onChange: (listener: Parameters<Store['memory']['onChange']>[0]) => {
      state.subscribed++;
      const off = real.onChange(listener);
      return () => {
        state.subscribed--;
        off();
      };
    },
  };
  return { memory: memory as unknown as Store['memory'], state, release };
}

describe('await after its turn ended', () => {
  it('ends at once and leaves no watch or memory subscription when the turn ended during its store read', async () => {
    const store = openStore({ kind: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'agentd-await-')), 's.db') });
    const held = heldMemory(store);
    const watchers = new Set<() => void>();
    const caps = {
      config: { agent: { name: 't', ask_human_fallback: 'fail' }, context: { plan: { max_items: 9 } }, limits: {} },
      store: { memory: held.memory },
      log: createLogger({ level: 'error', write: () => {} }),
      now: Date.now,
      conversation: () => ({ plan: null }),
      setPlan: () => {},
      watch: (check: () => void) => {
        watchers.add(check);
        return () => watchers.delete(check);
      },
      wake: () => {},
      status: () => ({}),
    } as unknown as HostCapabilities;
    const turn = { node: 1, turnId: 't1', job: { ctx: 'c', event: { id: 'e1' } }, end: turnEnd(), parked: new Map() };
    const host = buildToolHost(caps, turn as unknown as LiveTurn);
    const caller = {
      conversation: 'c',
      principal: null,
      depth: 0,
      turnId: 't1',
      kind: 'turn',
    } as unknown as ToolCaller;
    const outcome = awaitCondition({ condition: 'memory.k == true' }, caller, host);
    assert.equal(outcome.kind, 'defer');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(held.state.reading, 1, 'the await is inside its store read');
    // The turn is cancelled meanwhile: its cleanups run before the await has registered its watch.
    unparkAll(turn as unknown as LiveTurn);
    held.release();
    const result = await within((outcome as { promise: Promise<unknown> }).promise, 2_000, 'the await to end');
    assert.deepEqual(result, { result: { satisfied: false, timed_out: true }, is_error: false });
    assert.equal(watchers.size, 0, 'no watch remains');
    assert.equal(held.state.subscribed, 0, 'no memory subscription remains');
    assert.equal(turn.end.cleanups.length, 0);
    assert.equal(turn.end.ended, true);
    await store.close();
  });
});
