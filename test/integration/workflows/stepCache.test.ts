// The common `cache` field over the real engine and SQLite (producers reference §2.3, §2.7 item 4): a step's done
// output is kept in memory under its key; a later run with the same key is done with it (`step.cache_hit`) and its
// kind does not run; `cache.key` narrows the key; `ttl` expires it; load refuses what a cache could only ignore.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const reader = (cache: Record<string, unknown>) => ({
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    r: { kind: 'memory.get', depends_on: 's', key: 'v', cache },
    f: { kind: 'finish', depends_on: 'r', output: '{{steps.r.output}}' },
  },
});

const ask = (key: string, inputs: Record<string, unknown> = {}) => ({
  workflow: 'w',
  startKey: key,
  inputs,
  principal: null,
  conversation: null,
});

async function runOnce(life: Awaited<ReturnType<typeof openDesk>>, key: string, inputs?: Record<string, unknown>) {
  const got = await life.desk.start(ask(key, inputs));
  assert.ok(got.ok, got.ok ? '' : got.error);
  return settled(life, got.run.id);
}

describe('a step with cache', () => {
  it('is done with the cached output while it lives (the kind does not run), then runs again', async () => {
    const life = await openDesk(freshDir(), [reader({ ttl: '300ms' })]);
    try {
      await life.store.memory.set({ key: 'v', value: 1, expires: null, updated: Date.now() });
      assert.equal((await runOnce(life, 'one')).output, 1);
      assert.equal(named(life.events, 'step.cache_hit').length, 0, 'premise: the first run missed');
      await life.store.memory.set({ key: 'v', value: 2, expires: null, updated: Date.now() });
      assert.equal((await runOnce(life, 'two')).output, 1, 'the cached output, not the new value');
      const hits = named(life.events, 'step.cache_hit');
      assert.deepEqual(
        hits.map((e) => e.step),
        ['r'],
      );
      assert.match(String(hits[0]?.key), /^_cache\/[0-9a-f]{64}$/);
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await runOnce(life, 'three')).output, 2, 'past its ttl the kind runs again');
      assert.equal(named(life.events, 'step.cache_hit').length, 1);
    } finally {
      await life.close();
    }
  });

  it('keys by the rendered cache.key: another key misses, the same key hits across a restart', async () => {
    const dir = freshDir();
    const doc = reader({ key: '{{inputs.who}}' });
    const first = await openDesk(dir, [doc]);
    await first.store.memory.set({ key: 'v', value: 'a', expires: null, updated: Date.now() });
    assert.equal((await runOnce(first, 'one', { who: 'ann' })).output, 'a');
    await first.store.memory.set({ key: 'v', value: 'b', expires: null, updated: Date.now() });
    assert.equal((await runOnce(first, 'two', { who: 'bob' })).output, 'b', 'another key misses');
    await first.close();
    const second = await openDesk(dir, [doc]);
    try {
      await second.store.memory.set({ key: 'v', value: 'c', expires: null, updated: Date.now() });
      assert.equal((await runOnce(second, 'three', { who: 'ann' })).output, 'a', "ann's output, kept in the store");
      assert.equal(named(second.events, 'step.cache_hit').length, 1);
    } finally {
      await second.close();
    }
  });

  it('fails the step when cache.key cannot be rendered, naming the field', async () => {
    const life = await openDesk(freshDir(), [reader({ key: '{{inputs.missing}}' })]);
    try {
      const run = await runOnce(life, 'one');
      assert.equal(run.status, 'failed');
      assert.match(String(run.error), /step "r": cache\.key: template path "inputs\.missing" is not set/);
    } finally {
      await life.close();
    }
  });
});

describe('cache at load', () => {
  const errors = (cache: unknown, kind = 'memory.get', extra: Record<string, unknown> = { key: 'v' }) => {
    const got = loadWorkflow({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        r: { kind, depends_on: 's', ...extra, cache },
        f: { kind: 'finish', depends_on: 'r' },
      },
    });
    return got.ok ? [] : got.errors;
  };

  it('refuses a malformed cache, naming the workflow, the step and the field', () => {
    assert.deepEqual(errors('yes'), ['workflow "w" step "r": cache must be {key?, ttl?}']);
    assert.deepEqual(errors({ for: 1 }), ['workflow "w" step "r": unknown cache field "for" (allowed: key, ttl)']);
    assert.deepEqual(errors({ ttl: '2d' }), [`workflow "w" step "r": cache.ttl: unknown duration unit 'd' in 2d`]);
    assert.match(errors({ key: 'CEL: 1 +' })[0] ?? '', /^workflow "w" step "r": cache\.key: /);
  });

  it('refuses cache on a step whose result is not a value of its spec', () => {
    assert.deepEqual(errors({}, 'sleep', { duration: '1s' }), [
      'workflow "w" step "r": cache: the result of a "sleep" step cannot be cached; remove the field',
    ]);
    assert.deepEqual(errors({}, 'assign', { value: 1 }), [
      'workflow "w" step "r": cache: the result of a "assign" step cannot be cached; remove the field',
    ]);
  });
});
