// The workflow engine over a real SQLite store (producers reference §2.6-2.11, cases P-8, P-10, P-15, P-19, P-20):
// runs end as the reference says, and a second life on the same store resumes instead of starting over.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const P8 = {
  name: 'w',
  steps: {
    s: { kind: 'once' },
    v: { kind: 'assign', depends_on: 's', value: { x: 1 } },
    f: { kind: 'finish', depends_on: 'v', output: '{{vars.v.x}}' },
  },
};

describe('workflow runs (P-8)', () => {
  it('runs once → assign → finish to completed with the typed output, and a second life starts nothing', async () => {
    const dir = freshDir();
    const first = await openDesk(dir, [P8]);
    const [run] = await first.desk.fireOnce();
    assert.ok(run);
    const done = await settled(first, run.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 1);
    assert.equal(named(first.events, 'run.start').length, 1);
    assert.deepEqual(
      named(first.events, 'run.done').map((e) => e.status),
      ['completed'],
    );
    await first.close();

    const second = await openDesk(dir, [P8]);
    await second.desk.fireOnce();
    assert.equal(named(second.events, 'run.start').length, 0);
    assert.equal(named(second.events, 'start.once.skipped').length, 1);
    await second.close();
  });
});

describe('stall endings (P-10)', () => {
  it('(a) a false when prunes the step and what only it feeds: the run is stalled', async () => {
    const life = await openDesk(freshDir(), [
      {
        name: 'w',
        steps: {
          s: { kind: 'once' },
          a: { kind: 'noop', depends_on: 's', when: 'CEL: false' },
          f: { kind: 'finish', depends_on: 'a' },
        },
      },
    ]);
    const [run] = await life.desk.fireOnce();
    const done = await settled(life, run?.id ?? '');
    assert.equal(done.status, 'stalled');
    assert.equal(done.error, 'no ready step and no finish reached');
    assert.equal(done.steps['a']?.status, 'pruned');
    assert.equal(done.steps['f']?.status, 'pruned');
    await life.close();
  });

  it('(b) a failure whose goto target cannot reach the finish fails the run naming the first failure', async () => {
    const life = await openDesk(freshDir(), [
      {
        name: 'w',
        steps: {
          s: { kind: 'once' },
          b: { kind: 'fail', depends_on: 's', on_error: 'goto:c' },
          c: { kind: 'noop', depends_on: ['s'] },
          f: { kind: 'finish', depends_on: 'b' },
        },
      },
    ]);
    const [run] = await life.desk.fireOnce();
    const done = await settled(life, run?.id ?? '');
    assert.equal(done.status, 'failed');
    assert.equal(done.error, 'no ready step and no finish reached — step "b" failed first: deliberate failure');
    assert.equal(named(life.events, 'step.goto').length, 1);
    await life.close();
  });
});

describe('outputs.schema (P-15) and step failures', () => {
  it('a completed finish whose output breaks outputs.schema fails the finish step and the run', async () => {
    const life = await openDesk(freshDir(), [
      {
        name: 'w',
        outputs: { schema: { type: 'integer' } },
        steps: { s: { kind: 'once' }, f: { kind: 'finish', depends_on: 's', output: 'abc' } },
      },
    ]);
    const [run] = await life.desk.fireOnce();
    const done = await settled(life, run?.id ?? '');
    assert.equal(done.status, 'failed');
    assert.match(
      String(done.error),
      /^step "f" failed: finish: output does not match the workflow's declared outputs\.schema: /,
    );
    await life.close();
  });

  it('retries a failing step max times with the deterministic backoff, then fails the run (P-9 shape)', async () => {
    const life = await openDesk(freshDir(), [
      {
        name: 'w',
        steps: {
          s: { kind: 'once' },
          call: { kind: 'fail', depends_on: 's', retry: { max: 2, backoff: '20ms' } },
          f: { kind: 'finish', depends_on: 'call' },
        },
      },
    ]);
    const [run] = await life.desk.fireOnce();
    const done = await settled(life, run?.id ?? '');
    const retries = named(life.events, 'step.retry');
    assert.deepEqual(
      retries.map((e) => e.attempt),
      [1, 2],
    );
    const [first, second] = retries.map((e) => Number(e.backoff_ms));
    assert.ok(first !== undefined && first >= 16 && first <= 24, `first backoff ${first}`);
    assert.ok(second !== undefined && second >= 32 && second <= 48, `second backoff ${second}`);
    assert.deepEqual(
      named(life.events, 'step.start')
        .filter((e) => e.step === 'call')
        .map((e) => e.attempt),
      [1, 2, 3],
    );
    assert.equal(done.status, 'failed');
    assert.match(String(done.error), /^step "call" failed: deliberate failure/);
    await life.close();
  });
});

describe('deadline (P-20)', () => {
  it('fails the run at its deadline without waiting for the sleep', async () => {
    const life = await openDesk(freshDir(), [
      {
        name: 'w',
        limits: { deadline: '300ms' },
        steps: {
          s: { kind: 'once' },
          nap: { kind: 'sleep', depends_on: 's', duration: '5s' },
          f: { kind: 'finish', depends_on: 'nap' },
        },
      },
    ]);
    const started = Date.now();
    const [run] = await life.desk.fireOnce();
    const done = await settled(life, run?.id ?? '', 4_000);
    assert.equal(done.status, 'failed');
    assert.equal(done.error, 'deadline exceeded');
    assert.equal(done.steps['nap']?.status, 'cancelled');
    assert.ok(Date.now() - started < 4_000, 'ended before the 5 s sleep');
    assert.equal(named(life.events, 'run.deadline').length, 1);
    await life.close();
  });
});

describe('durable sleep and pinning across lives (P-19 premise, §2.11)', () => {
  it('a run sleeping when its life ends finishes in the next life without re-running done steps', async () => {
    const dir = freshDir();
    const doc = {
      name: 'w',
      steps: {
        s: { kind: 'once' },
        a: { kind: 'memory.set', depends_on: 's', key: 'count', value: 'CEL: 1' },
        nap: { kind: 'sleep', depends_on: 'a', duration: '400ms' },
        f: { kind: 'finish', depends_on: 'nap', output: 'done' },
      },
    };
    const first = await openDesk(dir, [doc]);
    const [run] = await first.desk.fireOnce();
    const id = run?.id ?? '';
    for (let i = 0; i < 100 && first.desk.engine.get(id)?.steps['nap']?.status !== 'suspended'; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(first.desk.engine.get(id)?.steps['nap']?.status, 'suspended');
    await first.close();

    // The second life loads an edited definition: the run keeps the version it started with.
    const edited = { ...doc, steps: { ...doc.steps, f: { kind: 'finish', depends_on: 'nap', output: 'edited' } } };
    const second = await openDesk(dir, [edited]);
    const done = await settled(second, id);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 'done');
    assert.equal(named(second.events, 'step.start').filter((e) => e.step === 'a').length, 0, 'a ran once, in life 1');
    await second.close();
  });
});
