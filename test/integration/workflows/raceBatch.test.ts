// race.min_success, a lost race branch's sync child runs, and batch.rate over the real engine and SQLite (producers
// reference §2.8 Nested): the behaviours agentd parses and never reads, built here.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { waitUntil } from '../wait.js';
import { around, type DeskLife, named, openDesk, runToEnd, SLOW, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const start = (life: DeskLife, workflow = 'w') => runToEnd(life, workflow, `k${++n}`);

describe('race', () => {
  it('a losing branch cancels the sync child runs it started, directly or inside a subgraph', async () => {
    const life = await openDesk(freshDir(), [
      SLOW,
      around({
        kind: 'race',
        branches: {
          direct: { c: { kind: 'workflow', name: 'slow' } },
          nested: { g: { kind: 'subgraph', body: { c: { kind: 'workflow', name: 'slow' } } } },
          kept: { c: { kind: 'workflow', name: 'slow', cascade: false } },
          quick: { nap: { kind: 'sleep', duration: '400ms' }, v: { kind: 'template', depends_on: 'nap', value: 7 } },
        },
      }),
    ]);
    try {
      const run = await start(life);
      assert.equal(run.status, 'completed', String(run.error));
      assert.deepEqual(run.output, { winner: 'quick', output: 7 });
      const children = (await life.store.workflows.listRuns({})).filter((r) => r.workflow === 'slow');
      assert.equal(children.length, 3, 'premise: each slow branch started its child before the race was won');
      await waitUntil(
        () => life.desk.engine.live().filter((r) => r.workflow === 'slow').length === 1,
        5_000,
        'the cascading children ended',
      );
      const ended = (await life.store.workflows.listRuns({})).filter((r) => r.workflow === 'slow');
      const byStep = Object.fromEntries(ended.map((r) => [r.parent?.step, [r.status, r.error]]));
      assert.deepEqual(byStep, {
        'x{direct}.c': ['cancelled', 'its parent step "x{direct}.c" was cancelled'],
        'x{nested}.g.c': ['cancelled', 'its parent step "x{nested}.g.c" was cancelled'],
        'x{kept}.c': ['running', null],
      });
    } finally {
      await life.close();
    }
  });

  it('min_success: N branches must succeed; output names them in order; too many failures fail early', async () => {
    const life = await openDesk(freshDir(), [
      around({
        kind: 'race',
        min_success: 2,
        branches: {
          a: { v: { kind: 'template', value: 'A' } },
          b: { nap: { kind: 'sleep', duration: '200ms' }, v: { kind: 'template', depends_on: 'nap', value: 'B' } },
          c: { nap: { kind: 'sleep', duration: '30s' } },
        },
      }),
    ]);
    try {
      const run = await start(life);
      assert.equal(run.status, 'completed', String(run.error));
      assert.deepEqual(run.output, { winner: 'a', output: 'A', winners: ['a', 'b'], outputs: { a: 'A', b: 'B' } });
      assert.ok(
        named(life.events, 'step.done').some((e) => e.step === 'x{c}.nap' && e.status === 'cancelled'),
        'the third branch was cancelled',
      );
    } finally {
      await life.close();
    }
    const failing = await openDesk(freshDir(), [
      around({
        kind: 'race',
        min_success: 2,
        branches: {
          a: { f: { kind: 'fail', message: 'A' } },
          b: { f: { kind: 'fail', message: 'B' } },
          c: { nap: { kind: 'sleep', duration: '30s' } },
        },
      }),
    ]);
    try {
      const run = await start(failing);
      assert.equal(run.status, 'failed');
      assert.match(
        String(run.error),
        /^step "x" failed: race: min_success 2 cannot be reached \(2 of 3 failed\): a: step "f" failed: A; b: step "f" failed: B$/,
      );
    } finally {
      await failing.close();
    }
  });

  it('min_success above the number of branches is a load error', () => {
    const loaded = loadWorkflow(
      around({ kind: 'race', min_success: 3, branches: { a: { n: { kind: 'noop' } }, b: { n: { kind: 'noop' } } } }),
    );
    assert.equal(loaded.ok, false);
    assert.deepEqual(loaded.ok ? [] : loaded.errors, [
      'workflow "w" step "x": race.min_success must be an integer from 1 to 2 (got 3)',
    ]);
  });
});

describe('batch.rate', () => {
  it('spaces batch starts by period / count', async () => {
    const body = { v: { kind: 'template', value: '{{batch.index}}' } };
    const life = await openDesk(freshDir(), [
      around({ kind: 'batch', over: [1, 2, 3, 4, 5, 6], size: 2, parallel: 4, rate: '1/300ms', body }),
    ]);
    try {
      const run = await start(life);
      assert.equal(run.status, 'completed', String(run.error));
      assert.deepEqual(run.output, [0, 1, 2]);
      const opened = named(life.events, 'step.instance').map((e) => Date.parse(String(e.ts)));
      assert.equal(opened.length, 3);
      // Spaced by 300 ms from the pass that opened the previous one (its event is logged after its commit, and a
      // timer may fire a millisecond early): without `rate` all three open in one pass, about 0 ms apart.
      for (let i = 1; i < opened.length; i++)
        assert.ok((opened[i] as number) - (opened[i - 1] as number) >= 250, `batch ${i} started ~300 ms after`);
    } finally {
      await life.close();
    }
  });

  it('a malformed rate is a load error', () => {
    const loaded = loadWorkflow(around({ kind: 'batch', over: [1], rate: 'often', body: { n: { kind: 'noop' } } }));
    assert.deepEqual(loaded.ok ? [] : loaded.errors, [
      'workflow "w" step "x": batch.rate must be <count>/<duration>, e.g. 10/1m',
    ]);
  });
});
