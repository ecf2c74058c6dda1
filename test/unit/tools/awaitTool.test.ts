// await (a condition watched until it holds or times out) and context.compact (nothing to compact yet).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateConversation } from '../../../src/context/estimate.js';
import { answered, deferred, err, type Harness, harness, ok, ready, run } from './fakeHost.js';

/** Lets the await body finish its first memory read (it registers its watch after it). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Watch {
  check: () => boolean;
  timeoutAt: number;
  resolve: (hit: boolean) => void;
}

/** A watch capability the test drives: `changed()` re-checks every watch, `expire()` times them all out. */
function withWatch(h: Harness) {
  const live: Watch[] = [];
  h.host.watch = (check, timeoutAt) => new Promise<boolean>((resolve) => live.push({ check, timeoutAt, resolve }));
  const settle = (w: Watch, hit: boolean) => {
    live.splice(live.indexOf(w), 1);
    w.resolve(hit);
  };
  return {
    live,
    changed: () => {
      for (const w of [...live]) if (w.check()) settle(w, true);
    },
    expire: () => {
      for (const w of [...live]) settle(w, false);
    },
  };
}

function setMemory(h: Harness, key: string, value: unknown): void {
  void h.memory.set({ key, value, expires: null, updated: h.clock.now });
}

describe('await', () => {
  it('answers {satisfied: true} at once when the condition already holds, without watching', async () => {
    const h = harness();
    const watch = withWatch(h);
    setMemory(h, 'ready', true);
    assert.deepEqual(await answered(run(h, 'await', { condition: 'memory.ready == true' })), ok({ satisfied: true }));
    assert.equal(watch.live.length, 0);
  });

  it('ends with an error naming the condition when its result is not a bool', async () => {
    const h = harness();
    withWatch(h);
    setMemory(h, 'report', { pages: 3 });
    assert.deepEqual(
      await answered(run(h, 'await', { condition: 'memory.report' })),
      err('await: condition "memory.report": returned map, want bool'),
    );
  });

  it('ends a watch with an error when a written value mismatches the condition type', async () => {
    const h = harness();
    const watch = withWatch(h);
    const out = run(h, 'await', { condition: 'memory.n > 2' });
    await flush();
    assert.equal(watch.live.length, 1, 'premise: an absent key waits');
    setMemory(h, 'n', 'three');
    watch.changed();
    assert.deepEqual(
      await deferred(out),
      err(`await: condition "memory.n > 2": found no matching overload for '_>_' applied to '(string, int)'`),
    );
  });

  it('watches until a state change makes it hold, with the default 10m timeout', async () => {
    const h = harness();
    const watch = withWatch(h);
    const out = run(h, 'await', { condition: 'has(memory.report) && memory.report.pages > 2' });
    assert.equal(out.kind, 'defer');
    await flush();
    assert.equal(watch.live[0]?.timeoutAt, 1_000 + 600_000);
    setMemory(h, 'report', { pages: 1 });
    watch.changed();
    assert.equal(watch.live.length, 1, 'still waiting');
    setMemory(h, 'report', { pages: 5 });
    watch.changed();
    assert.deepEqual(await deferred(out), ok({ satisfied: true }));
  });

  it('reads the caller plan counts', async () => {
    const h = harness();
    const watch = withWatch(h);
    run(h, 'plan.create', { goal: 'g', items: ['a'] });
    const out = run(h, 'await', { condition: 'plan.total > 0 && plan.done == plan.total' });
    await flush();
    run(h, 'plan.update', { item: 1, status: 'done' });
    watch.changed();
    assert.deepEqual(await deferred(out), ok({ satisfied: true }));
  });

  it('answers {satisfied: false, timed_out: true} at the timeout', async () => {
    const h = harness();
    const watch = withWatch(h);
    const out = run(h, 'await', { condition: 'now_ms > 99999999', timeout: '30s' });
    await flush();
    assert.equal(watch.live[0]?.timeoutAt, 31_000);
    watch.expire();
    assert.deepEqual(await deferred(out), ok({ satisfied: false, timed_out: true }));
  });

  it('turns a failure reading state into an error result, without watching', async () => {
    const h = harness();
    const watch = withWatch(h);
    h.host.memory.get = () => Promise.reject(new Error('store gone'));
    const out = run(h, 'await', { condition: 'memory.x == 1' });
    assert.deepEqual(await deferred(out), err('await failed: store gone'));
    assert.equal(watch.live.length, 0);
  });

  it('reads each memory key once, then follows the change notification (no store read per step)', async () => {
    const h = harness();
    const watch = withWatch(h);
    const read = h.memory.get.bind(h.memory);
    let reads = 0;
    h.host.memory.get = (key, now) => {
      reads++;
      return read(key, now);
    };
    const out = run(h, 'await', { condition: 'memory.a == 1 && memory.b == 2' });
    await flush();
    for (let step = 0; step < 5; step++) watch.changed();
    assert.equal(watch.live.length, 1, 'premise: still waiting after five steps');
    setMemory(h, 'a', 1);
    watch.changed();
    setMemory(h, 'b', 2);
    watch.changed();
    assert.deepEqual(await deferred(out), ok({ satisfied: true }));
    assert.equal(reads, 2, 'one read per key, none per step');
  });

  it('refuses a condition that does not parse, at once and without watching', () => {
    const h = harness();
    const watch = withWatch(h);
    assert.match(
      String(ready(run(h, 'await', { condition: 'memory.x = 1' })).result),
      /^await: condition "memory\.x = 1": CEL parse error: /,
    );
    assert.deepEqual(
      ready(run(h, 'await', { condition: '"x" in memory' })),
      err(
        'await: condition "\\"x\\" in memory": read memory as memory.<key> or memory["key"] (has(memory.<key>) tests one)',
      ),
    );
    assert.equal(watch.live.length, 0);
  });

  it('refuses a timeout over 24h, a malformed one, and a missing condition', () => {
    const h = harness();
    withWatch(h);
    assert.deepEqual(
      ready(run(h, 'await', { condition: 'true', timeout: '25h' })),
      err('await: timeout 25h is longer than the 24h maximum'),
    );
    assert.match(
      String(ready(run(h, 'await', { condition: 'true', timeout: 'later' })).result),
      /^invalid arguments for await: \/timeout must be a duration/,
    );
    assert.deepEqual(
      ready(run(h, 'await', {})),
      err("invalid arguments for await: must have required property 'condition'"),
    );
  });

  it('is not available without a watch capability', () => {
    assert.deepEqual(ready(run(harness(), 'await', { condition: 'true' })), err('"await" is not available here'));
  });
});

describe('context.compact', () => {
  it('reports the version and estimate with nothing folded, without parking', () => {
    const h = harness();
    h.conv.messages.push({ role: 'user', text: 'hello there, a message of some length', principal: 'alice', ts: 0 });
    const out = ready(run(h, 'context.compact', { target_tokens: 1000, keep_last: 2 }));
    assert.deepEqual(
      out,
      ok({ version: 1, est_tokens: estimateConversation(h.conv), folded: 0, note: 'nothing to compact' }),
    );
    assert.ok((out.result as { est_tokens: number }).est_tokens > 0);
  });

  it('refuses a negative keep_last', () => {
    assert.deepEqual(
      ready(run(harness(), 'context.compact', { keep_last: -1 })),
      err('invalid arguments for context.compact: /keep_last must be >= 0'),
    );
  });
});
