// The nested control kinds over the real engine and SQLite (producers reference §2.8 Nested): foreach, batch,
// iterate, parallel, race, subgraph run their bodies as scoped steps and end with the reference's outputs and texts.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { around, type DeskLife, named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

async function runOnce(doc: unknown, inputs: Record<string, unknown> = {}, life?: DeskLife) {
  const own = life ?? (await openDesk(freshDir(), [doc]));
  const got = await own.desk.start({ workflow: 'w', inputs, startKey: `k${++n}`, principal: null, conversation: null });
  assert.ok(got.ok, got.ok ? '' : got.error);
  const run = await settled(own, got.run.id);
  if (!life) await own.close();
  return { run, events: own.events };
}

describe('foreach', () => {
  it('runs its body per item with item/index and sibling steps; results by position', async () => {
    const doc = around({
      kind: 'foreach',
      over: '{{inputs.items}}',
      as: 'it',
      body: {
        double: { kind: 'template', value: 'CEL: it * 2' },
        label: { kind: 'template', depends_on: 'double', text: '{{index}}:{{steps.double.output}}' },
      },
    });
    const { run, events } = await runOnce(doc, { items: [1, 2, 3] });
    assert.equal(run.status, 'completed', String(run.error));
    assert.deepEqual(run.output, ['0:2', '1:4', '2:6']);
    assert.ok(
      named(events, 'step.start').some((e) => e.step === 'x[2].label'),
      'scoped ids',
    );
    assert.equal(Object.keys(run.steps).filter((k) => k.includes('[')).length, 0, 'finished elements dropped');
  });

  it('an element failing under fail fails the step naming the element; continue fills {index, error}', async () => {
    const body = { check: { kind: 'assert', condition: 'item != 2', message: 'two' } };
    const failing = await runOnce(around({ kind: 'foreach', over: [1, 2, 3], body }));
    assert.equal(failing.run.status, 'failed');
    assert.equal(failing.run.error, 'step "x" failed: element 1 failed: step "check" failed: two');
    const going = await runOnce(around({ kind: 'foreach', over: [1, 2, 3], on_error: 'continue', body }));
    assert.equal(going.run.status, 'completed');
    assert.deepEqual(going.run.output, [true, { index: 1, error: 'step "check" failed: two' }, true]);
  });

  it('an object is [{key, value}], null is [], a number is refused; collect writes vars', async () => {
    const obj = await runOnce(
      around(
        {
          kind: 'foreach',
          over: { a: 1 },
          collect: { into: 'all', mode: 'append' },
          body: { k: { kind: 'template', value: '{{item.key}}' } },
        },
        { f: { kind: 'finish', depends_on: 'x', output: '{{vars.all}}' } },
      ),
    );
    assert.deepEqual(obj.run.output, ['a']);
    const none = await runOnce(around({ kind: 'foreach', over: null, body: { k: { kind: 'noop' } } }));
    assert.deepEqual(none.run.output, []);
    const bad = await runOnce(around({ kind: 'foreach', over: 5, body: { k: { kind: 'noop' } } }));
    assert.equal(bad.run.error, 'step "x" failed: foreach: over must be an array (got number)');
  });
});

describe('batch and iterate', () => {
  it('batch chunks by size and groups by key', async () => {
    const sized = await runOnce(
      around({
        kind: 'batch',
        over: [1, 2, 3, 4, 5],
        size: 2,
        body: { n: { kind: 'template', value: 'CEL: size(item)' } },
      }),
    );
    assert.deepEqual(sized.run.output, [2, 2, 1]);
    const by = await runOnce(
      around({
        kind: 'batch',
        over: [{ t: 'a' }, { t: 'b' }, { t: 'a' }],
        by: 't',
        body: { n: { kind: 'template', text: '{{batch.key}}={{batch.items.length}}' } },
      }),
    );
    assert.equal(by.run.status, 'completed', String(by.run.error));
    assert.deepEqual(
      (by.run.output as string[]).map((s) => s.split('=')[0]),
      ['a', 'b'],
    );
  });

  it('iterate runs while/until with the iteration and previous result; collect keeps all', async () => {
    const until = await runOnce(
      around({
        kind: 'iterate',
        until: 'result >= 3',
        collect: true,
        body: { step: { kind: 'template', value: 'CEL: iteration + 1' } },
      }),
    );
    assert.deepEqual(until.run.output, [1, 2, 3]);
    const whileDoc = await runOnce(
      around({
        kind: 'iterate',
        while: 'iteration < 4',
        body: { step: { kind: 'template', value: 'CEL: previous == null ? 1 : previous * 2' } },
      }),
    );
    assert.equal(whileDoc.run.output, 8);
    const capped = await runOnce(
      around({
        kind: 'iterate',
        max_iterations: 2,
        collect: true,
        body: { step: { kind: 'template', value: 'CEL: iteration' } },
      }),
    );
    assert.deepEqual(capped.run.output, [0, 1]);
  });
});

describe('parallel, race, subgraph', () => {
  it('parallel outputs each branch by name with _errors; a failing branch fails under fail', async () => {
    const branches = {
      a: { one: { kind: 'template', value: 'CEL: 1' } },
      b: { two: { kind: 'template', text: '{{branch}}' }, three: { kind: 'noop', depends_on: 'two' } },
    };
    const ok = await runOnce(around({ kind: 'parallel', branches }));
    assert.deepEqual(ok.run.output, { a: 1, b: null, _errors: {} });
    const bad = { ...branches, c: { boom: { kind: 'fail', message: 'no' } } };
    const failedRun = await runOnce(around({ kind: 'parallel', branches: bad }));
    assert.equal(failedRun.run.error, 'step "x" failed: branch c failed: step "boom" failed: no');
    const kept = await runOnce(around({ kind: 'parallel', on_error: 'continue', branches: bad }));
    assert.deepEqual(kept.run.output, { a: 1, b: null, c: null, _errors: { c: 'step "boom" failed: no' } });
  });

  it('race: the first branch to finish wins and the others are cancelled; every branch failing fails', async () => {
    const won = await runOnce(
      around({
        kind: 'race',
        branches: {
          slow: { nap: { kind: 'sleep', duration: '5s' } },
          fast: { v: { kind: 'template', value: 'quick' } },
        },
      }),
    );
    assert.deepEqual(won.run.output, { winner: 'fast', output: 'quick' });
    assert.ok(
      named(won.events, 'step.done').some((e) => e.step === 'x{slow}.nap' && e.status === 'cancelled'),
      'the loser is cancelled',
    );
    const lost = await runOnce(
      around({ kind: 'race', branches: { a: { f: { kind: 'fail', message: 'A' } }, b: { f: { kind: 'fail' } } } }),
    );
    assert.equal(
      lost.run.error,
      'step "x" failed: race: every branch failed: a: step "f" failed: A; b: step "f" failed: deliberate failure',
    );
    const late = await runOnce(
      around({ kind: 'race', timeout: '100ms', branches: { a: { nap: { kind: 'sleep', duration: '5s' } } } }),
    );
    assert.equal(late.run.error, 'step "x" failed: race: no branch finished in time');
  });

  it('subgraph runs its body once; nesting works (foreach inside subgraph)', async () => {
    const { run } = await runOnce(
      around({
        kind: 'subgraph',
        body: {
          each: { kind: 'foreach', over: [1, 2], body: { sq: { kind: 'template', value: 'CEL: item * item' } } },
          sum: { kind: 'template', depends_on: 'each', value: 'CEL: steps.each.output[0] + steps.each.output[1]' },
        },
      }),
    );
    assert.equal(run.status, 'completed', String(run.error));
    assert.equal(run.output, 5);
  });
});

/** A real HTTP server answering after `delayMs`, counting the most requests it held at once. */
async function slowServer(delayMs: number) {
  let now = 0;
  let most = 0;
  const server = createServer((_req, res) => {
    now += 1;
    most = Math.max(most, now);
    setTimeout(() => {
      now -= 1;
      res.end('{}');
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, most: () => most, close: () => new Promise((r) => server.close(r)) };
}

describe('effects side by side', () => {
  it('foreach runs `batch` http bodies at once, clamped to limits.workflow.fan_out', async () => {
    const step = (batch: number, url: string) =>
      around({
        kind: 'foreach',
        over: [1, 2, 3, 4, 5, 6],
        batch,
        body: { get: { kind: 'http', url, allow_private: true } },
      });
    const server = await slowServer(150);
    const wide = await runOnce(step(3, server.url));
    assert.equal(wide.run.status, 'completed', String(wide.run.error));
    assert.equal(server.most(), 3, 'three elements at once');
    await server.close();
    const narrow = await slowServer(150);
    const life = await openDesk(freshDir(), [step(6, narrow.url)], { fanOut: 2 });
    const clamped = await runOnce(step(6, narrow.url), {}, life);
    await life.close();
    assert.equal(clamped.run.status, 'completed');
    assert.equal(narrow.most(), 2, 'never more than the fan-out (2)');
    await narrow.close();
  });

  it('independent top-level effect steps and parallel branches run at once', async () => {
    const server = await slowServer(150);
    const get = { kind: 'http', url: server.url, allow_private: true };
    const { run } = await runOnce({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        a: { ...get, depends_on: 's' },
        b: { ...get, depends_on: 's' },
        p: { kind: 'parallel', depends_on: 's', branches: { x: { g: get }, y: { g: get } } },
        f: { kind: 'finish', depends_on: ['a', 'b', 'p'] },
      },
    });
    assert.equal(run.status, 'completed', String(run.error));
    assert.equal(server.most(), 4);
    await server.close();
  });
});

describe('load-time checks', () => {
  const errors = (doc: unknown): string[] => {
    const loaded = loadWorkflow(doc);
    return loaded.ok ? [] : loaded.errors;
  };
  it('names the workflow, the step and the field', () => {
    assert.deepEqual(errors(around({ kind: 'foreach', over: [], body: { a: { kind: 'noop', depends_on: 'zz' } } })), [
      'workflow "w" step "x": body: step "a": "zz" is not a sibling step of this body',
    ]);
    assert.deepEqual(errors(around({ kind: 'foreach', over: [], body: { a: { kind: 'noop', bogus: 1 } } })), [
      'workflow "w" step "x": body step "a": unknown field "bogus" for kind "noop" (allowed: )',
    ]);
    assert.deepEqual(errors(around({ kind: 'foreach', over: [], body: { a: { kind: 'finish' } } })), [
      'workflow "w" step "x": body: step "a": a body holds no finish (its sinks are its result)',
    ]);
    assert.deepEqual(errors(around({ kind: 'batch', over: [], rate: 1, body: { a: { kind: 'noop' } } })), [
      'workflow "w" step "x": batch.rate must be <count>/<duration>, e.g. 10/1m',
    ]);
    assert.deepEqual(errors(around({ kind: 'iterate', max_iterations: 20_000, body: { a: { kind: 'noop' } } })), [
      'workflow "w" step "x": iterate.max_iterations must be an integer from 1 to 10000 (got 20000)',
    ]);
    assert.deepEqual(errors(around({ kind: 'parallel', branches: { a: { h: { kind: 'human', question: 'q' } } } })), [
      'workflow "w" step "x": branches.a step "h": a human step cannot run inside foreach|batch|parallel|race',
    ]);
    assert.deepEqual(errors(around({ kind: 'foreach', over: [], body: {} })), [
      'workflow "w" step "x": body must be a non-empty mapping of step ids',
    ]);
  });
});
