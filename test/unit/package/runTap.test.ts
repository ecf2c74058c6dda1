// The run tap maps a worker's progress to RunEvents and reaches only the run's own listeners.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../../src/domain/runEvent.js';
import { RunTap, runEventOf } from '../../../src/obs/runTap.js';
import { RunEvents } from '../../../src/runHandle.js';

describe('runEventOf', () => {
  it('maps each reported progress event and drops the rest', () => {
    assert.deepEqual(runEventOf('r', 't', 'turn.round', { round: 2, tokens_in: 9, tokens_out: 3 }), {
      type: 'round',
      runId: 'r',
      turnId: 't',
      round: 2,
      usage: { input_tokens: 9, output_tokens: 3 },
    });
    const done = runEventOf('r', 't', 'turn.tool_done', { id: 'c1', tool: 'x', result: 'ok', is_error: false, ms: 4 });
    assert.equal(done?.type, 'tool_result');
    assert.equal(runEventOf('r', 't', 'tool.park', {}), null);
  });
});

describe('RunTap', () => {
  it('delivers a run only to its watchers, until they unsubscribe', () => {
    const tap = new RunTap();
    const seen: RunEvent[] = [];
    const stop = tap.watch('a', (e) => seen.push(e));
    tap.publish('a', 't', 'turn.think', { round: 1 });
    tap.publish('b', 't', 'turn.think', { round: 1 });
    stop();
    tap.publish('a', 't', 'turn.think', { round: 2 });
    assert.deepEqual(seen, [{ type: 'thinking', runId: 'a', turnId: 't', round: 1 }]);
  });
});

describe('RunEvents', () => {
  it('ends a waiting iterator when the run ends without a done event (its result rejected)', async () => {
    const events = new RunEvents();
    events.push({ type: 'accepted', runId: 'r', conversation: 'c' });
    const read: string[] = [];
    const reading = (async () => {
      for await (const e of events) read.push(e.type);
      return 'ended';
    })();
    // Without end() the iterator waits for a done event forever: the race below would time out instead.
    setImmediate(() => events.end());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((r) => {
      timer = setTimeout(() => r('still waiting'), 5_000);
    });
    assert.equal(await Promise.race([reading, late]), 'ended');
    clearTimeout(timer);
    assert.deepEqual(read, ['accepted']);
  });
});
