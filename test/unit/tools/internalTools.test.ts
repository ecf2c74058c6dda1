// Running internal tools on the supervisor side (reference §9.5, §11.5, §13), over an in-test memory fake.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSuspending, sealResult } from '../../../src/tools/internalTools.js';
import { answered, deferred, err, harness, ok, ready, run } from './fakeHost.js';

describe('runInternalTool: validation order', () => {
  it('refuses an unknown name', async () => {
    assert.deepEqual(await answered(run(harness(), 'memory.nope', {})), err('no such tool "memory.nope"'));
    assert.deepEqual(ready(run(harness(), 'toString', {})), err('no such tool "toString"'));
  });

  it('refuses arguments the model sent as non-JSON', async () => {
    assert.deepEqual(
      await answered(run(harness(), 'memory.set', { _raw: '{key: oops' })),
      err('invalid arguments for memory.set: not valid JSON: {key: oops'),
    );
  });

  it('refuses a schema violation with the explanation', async () => {
    assert.deepEqual(
      await answered(run(harness(), 'memory.get', {})),
      err("invalid arguments for memory.get: must have required property 'key'"),
    );
  });

  it('refuses an extra property on a closed object', async () => {
    const h = harness();
    assert.deepEqual(
      await answered(run(h, 'memory.set', { key: 'k', value: 1, colour: 'red' })),
      err("invalid arguments for memory.set: must not have property 'colour'"),
    );
    assert.equal(h.memory.entries.size, 0, 'nothing ran');
  });

  it('treats missing arguments as an empty object', async () => {
    assert.deepEqual(ready(run(harness(), 'plan.get', undefined)), ok({ plan: null, progress: 'no plan' }));
  });

  it('turns an exception from the host into an error result', async () => {
    const h = harness();
    h.host.memory.get = () => {
      throw new Error('disk on fire\nstack');
    };
    assert.deepEqual(await answered(run(h, 'memory.get', { key: 'k' })), err('memory.get failed: disk on fire'));
  });
});

describe('runInternalTool: output schema', () => {
  it('turns a result that violates the output schema into an error and reports it', async () => {
    const h = harness();
    h.host.memory.list = async () => ({ keys: [7 as unknown as string], truncated: false });
    assert.deepEqual(
      await answered(run(h, 'memory.list', {})),
      err('result of memory.list does not match its output schema: /keys/0 must be string'),
    );
    assert.deepEqual(h.schemaEvents, [['memory.list', '/keys/0 must be string']]);
  });
});

describe('runInternalTool: deferred results', () => {
  it('checks a deferred success against the output schema and reports a mismatch', async () => {
    const h = harness();
    h.host.humanChannel = true;
    h.host.askHuman = () => Promise.resolve(ok({ reply: 'yes' }));
    assert.deepEqual(
      await deferred(run(h, 'ask_human', { question: 'q' })),
      err("result of ask_human does not match its output schema: must have required property 'timed_out'"),
    );
    assert.deepEqual(h.schemaEvents, [['ask_human', "must have required property 'timed_out'"]]);
  });

  it('passes a deferred error result through unchecked', async () => {
    const h = harness();
    h.host.think = () => Promise.resolve(err('think failed: deadline'));
    assert.deepEqual(await deferred(run(h, 'think', { prompt: 'p' })), err('think failed: deadline'));
    assert.deepEqual(h.schemaEvents, []);
  });

  it('turns a rejected promise into an error result, never a rejection', async () => {
    const h = harness();
    h.host.think = () => Promise.reject(new Error('think child crashed\nstack'));
    assert.deepEqual(await deferred(run(h, 'think', { prompt: 'p' })), err('think failed: think child crashed'));
    h.host.watch = () => Promise.reject('watch torn down');
    assert.deepEqual(await deferred(run(h, 'await', { condition: 'false' })), err('await failed: watch torn down'));
  });

  it('turns a promise that resolves to something other than a result into an error result', async () => {
    const h = harness();
    h.host.think = () => Promise.resolve(undefined as unknown as { result: unknown; is_error: boolean });
    assert.deepEqual(
      await deferred(run(h, 'think', { prompt: 'p' })),
      err('think failed: the supervisor gave no result'),
    );
  });

  it('turns a capability that throws before deferring into a ready error result', async () => {
    const h = harness();
    h.host.think = () => {
      throw new Error('no worker slots');
    };
    assert.deepEqual(ready(run(h, 'think', { prompt: 'p' })), err('think failed: no worker slots'));
  });
});

describe('sealResult', () => {
  it('passes a matching success and any error through', async () => {
    assert.deepEqual(sealResult('finish', ok({ ok: true })), ok({ ok: true }));
    assert.deepEqual(sealResult('finish', err('boom')), err('boom'));
  });

  it('turns a mismatching success into an error', async () => {
    assert.deepEqual(
      sealResult('finish', ok({ done: true })),
      err("result of finish does not match its output schema: must have required property 'ok'"),
    );
  });
});

describe('memory tools', () => {
  it('memory.set then memory.get returns the value and its meta', async () => {
    const h = harness();
    assert.deepEqual(
      await answered(run(h, 'memory.set', { key: 'greeting', value: { text: 'hi' } })),
      ok({ ok: true, key: 'greeting' }),
    );
    assert.deepEqual(
      await answered(run(h, 'memory.get', { key: 'greeting' })),
      ok({ found: true, key: 'greeting', value: { text: 'hi' }, meta: { updated: 1_000, expires: null } }),
    );
  });

  it('memory.get reports an absent key as not found', async () => {
    assert.deepEqual(
      await answered(run(harness(), 'memory.get', { key: 'nope' })),
      ok({ found: false, key: 'nope', value: null, meta: null }),
    );
  });

  it('memory.set with a ttl string or seconds sets the expiry', async () => {
    const h = harness();
    await answered(run(h, 'memory.set', { key: 'a', value: 1, ttl: '10m' }));
    await answered(run(h, 'memory.set', { key: 'b', value: 2, ttl: 1.5 }));
    assert.equal(h.memory.entries.get('a')?.expires, 1_000 + 600_000);
    assert.equal(h.memory.entries.get('b')?.expires, 1_000 + 1_500);
    h.clock.now = 5_000;
    assert.equal(((await answered(run(h, 'memory.get', { key: 'b' }))).result as { found: boolean }).found, false);
  });

  it('memory.list filters by prefix, defaults the limit to 100 and reports truncation', async () => {
    const h = harness();
    for (const key of ['a/1', 'a/2', 'b/1']) run(h, 'memory.set', { key, value: key });
    assert.deepEqual(
      await answered(run(h, 'memory.list', { prefix: 'a/' })),
      ok({ keys: ['a/1', 'a/2'], truncated: false }),
    );
    assert.deepEqual(await answered(run(h, 'memory.list', { limit: 1 })), ok({ keys: ['a/1'], truncated: true }));
    for (let i = 0; i < 120; i++) run(h, 'memory.set', { key: `z${String(i).padStart(3, '0')}`, value: i });
    const listed = (await answered(run(h, 'memory.list', { prefix: 'z' }))).result as {
      keys: string[];
      truncated: boolean;
    };
    assert.equal(listed.keys.length, 100);
    assert.equal(listed.truncated, true);
  });

  it('memory.delete tells whether the key existed', async () => {
    const h = harness();
    await answered(run(h, 'memory.set', { key: 'k', value: null }));
    assert.deepEqual(await answered(run(h, 'memory.delete', { key: 'k' })), ok({ deleted: true }));
    assert.deepEqual(await answered(run(h, 'memory.delete', { key: 'k' })), ok({ deleted: false }));
  });

  it("refuses agentd's own keys (_artifacts/, _cache/, _workflows/) and leaves them out of a list", async () => {
    const h = harness();
    const secret = {
      key: '_artifacts/r/s',
      value: { content: 'TOPSECRET', sensitive: true },
      expires: null,
      updated: 1,
    };
    h.memory.entries.set(secret.key, secret);
    h.memory.entries.set('_cache/abc', { key: '_cache/abc', value: 1, expires: null, updated: 1 });
    await answered(run(h, 'memory.set', { key: 'mine', value: 1 }));
    const own = (tool: string, key: string): ReturnType<typeof err> =>
      err(`${tool}: key "${key}" is under "${key.slice(0, key.indexOf('/') + 1)}", which agentd keeps for itself`);
    assert.deepEqual(
      await answered(run(h, 'memory.get', { key: '_artifacts/r/s' })),
      own('memory.get', '_artifacts/r/s'),
    );
    assert.deepEqual(
      await answered(run(h, 'memory.set', { key: '_cache/x', value: 1 })),
      own('memory.set', '_cache/x'),
    );
    assert.deepEqual(
      await answered(run(h, 'memory.delete', { key: '_artifacts/r/s' })),
      own('memory.delete', '_artifacts/r/s'),
    );
    assert.deepEqual(
      await answered(run(h, 'memory.list', { prefix: '_workflows/' })),
      err('memory.list: prefix "_workflows/" is under "_workflows/", which agentd keeps for itself'),
    );
    assert.deepEqual(await answered(run(h, 'memory.list', {})), ok({ keys: ['mine'], truncated: false }));
    assert.deepEqual(h.memory.entries.get('_artifacts/r/s'), secret, 'the artifact is untouched');
  });
});

describe('plan tools', () => {
  it('plan.create stores the plan on the caller conversation, marks it dirty and reports it', async () => {
    const h = harness();
    const out = ready(
      run(h, 'plan.create', { goal: 'greet', items: ['say hello', { title: 'wave', detail: 'twice' }] }),
    );
    assert.equal(out.is_error, false);
    assert.deepEqual(out.result, { plan: h.conv.plan, progress: '0/2 done' });
    assert.equal(h.conv.plan?.items[1]?.detail, 'twice');
    assert.deepEqual(h.dirty, ['c1']);
    assert.deepEqual(h.planEvents, [['c1', 'create', '0/2 done']]);
  });

  it('plan.create refuses more than planMaxItems items', async () => {
    const h = harness();
    const out = ready(run(h, 'plan.create', { goal: 'g', items: ['a', 'b', 'c', 'd', 'e'] }));
    assert.deepEqual(out, err('plan.create: a plan holds at most 4 items (got 5)'));
    assert.equal(h.conv.plan, null);
  });

  it('plan.get returns the plan and its progress', async () => {
    const h = harness();
    run(h, 'plan.create', { goal: 'g', items: ['a'] });
    assert.deepEqual(ready(run(h, 'plan.get', {})), ok({ plan: h.conv.plan, progress: '0/1 done' }));
  });

  it('plan.update changes an item and reports the new progress', async () => {
    const h = harness();
    run(h, 'plan.create', { goal: 'g', items: ['a', 'b'] });
    const out = ready(run(h, 'plan.update', { item: 'a', status: 'done' }));
    assert.deepEqual(out, ok({ plan: h.conv.plan, progress: '1/2 done' }));
    assert.deepEqual(h.planEvents.at(-1), ['c1', 'update', '1/2 done']);
  });

  it('plan.update with no plan is an error value', async () => {
    const h = harness();
    assert.deepEqual(
      ready(run(h, 'plan.update', { item: 1, status: 'done' })),
      err('plan.update: there is no plan; create one with plan.create'),
    );
    assert.deepEqual(h.dirty, []);
  });

  it('plan.update passes on a plan operation error and leaves the plan as it was', async () => {
    const h = harness();
    run(h, 'plan.create', { goal: 'g', items: ['a'] });
    const before = h.conv.plan;
    assert.deepEqual(
      ready(run(h, 'plan.update', { item: 5, status: 'done' })),
      err('plan.update: no plan item with id 5 (ids are 1)'),
    );
    assert.equal(h.conv.plan, before);
  });

  it('plan.clear removes the plan and says whether there was one', async () => {
    const h = harness();
    run(h, 'plan.create', { goal: 'g', items: ['a'] });
    assert.deepEqual(ready(run(h, 'plan.clear', {})), ok({ ok: true }));
    assert.equal(h.conv.plan, null);
    assert.deepEqual(h.planEvents.at(-1), ['c1', 'clear', 'no plan']);
    assert.deepEqual(ready(run(h, 'plan.clear', {})), ok({ ok: false }));
    assert.equal(h.planEvents.length, 2, 'clearing nothing reports nothing');
  });
});

describe('finish', () => {
  it('acknowledges with ok: true', async () => {
    assert.deepEqual(ready(run(harness(), 'finish', { status: 'completed', output: { n: 3 } })), ok({ ok: true }));
  });
});

describe('sleep', () => {
  it('parks until now + duration and completes with the time slept', async () => {
    const h = harness();
    const out = run(h, 'sleep', { duration: '2s' });
    assert.equal(out.kind, 'park');
    if (out.kind !== 'park') return;
    assert.equal(out.wakeAt, 3_000);
    assert.deepEqual(out.complete(3_000), ok({ slept_ms: 2_000 }));
    assert.deepEqual(out.complete(3_250), ok({ slept_ms: 2_250 }));
  });

  it('takes a number as seconds', async () => {
    const out = run(harness(), 'sleep', { duration: 0.25 });
    assert.equal(out.kind === 'park' ? out.wakeAt : -1, 1_250);
  });

  it('refuses a malformed duration without parking', async () => {
    const out = ready(run(harness(), 'sleep', { duration: 'soon' }));
    assert.equal(out.is_error, true);
    assert.match(String(out.result), /^invalid arguments for sleep: \/duration must be a duration/);
  });

  it('is a suspending tool', async () => {
    assert.equal(isSuspending('sleep'), true);
    assert.equal(isSuspending('memory.get'), false);
  });
});
