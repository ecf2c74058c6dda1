// A SIGKILL between steps (producers reference §2.11, P-16 shape): the next life resumes the run from its last
// committed step — steps done before the kill never run again, the run finishes exactly once.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../wait.js';
import { tempStoreDir } from './deskRig.js';

const LIFE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'doubles', 'workflowLife.js');
const tmp = tempStoreDir();
after(() => tmp.remove());

const DOC = {
  name: 'w',
  steps: {
    s: { kind: 'once' },
    a: { kind: 'memory.set', depends_on: 's', key: 'a', value: 'CEL: now_ms' },
    nap: { kind: 'sleep', depends_on: 'a', duration: '800ms' },
    b: { kind: 'memory.set', depends_on: 'nap', key: 'b', value: 'CEL: now_ms' },
    f: { kind: 'finish', depends_on: 'b', output: 'done' },
  },
};

interface Life {
  child: ChildProcess;
  events: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

function live(dir: string, doc: unknown = DOC, mode?: string): Life {
  const args = [LIFE, dir, JSON.stringify(doc), ...(mode ? [mode] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const events: Array<Record<string, unknown>> = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as Record<string, unknown>);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, events, exited };
}

const starts = (life: Life, step: string) => life.events.filter((e) => e.event === 'step.start' && e.step === step);

describe('a run across a SIGKILL', () => {
  it('resumes after the kill: a and the start never run again, the run completes once', async () => {
    const first = live(tmp.dir);
    // Killed while nap sleeps: a is committed done, nap is suspended with its due time in the store.
    await waitUntil(() => starts(first, 'nap').length > 0, 15_000, 'nap started');
    await new Promise((r) => setTimeout(r, 150));
    first.child.kill('SIGKILL');
    await first.exited;
    assert.equal(first.events.filter((e) => e.event === 'run.done').length, 0, 'premise: life 1 died before the end');

    const second = live(tmp.dir);
    assert.equal(await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('hung'), 15_000))]), 0);
    assert.equal(second.events.filter((e) => e.event === 'run.start').length, 0, 'no second run');
    assert.equal(second.events.filter((e) => e.event === 'start.once.skipped').length, 1);
    assert.equal(starts(second, 'a').length, 0, 'a ran in life 1 only');
    assert.equal(starts(second, 'b').length, 1);
    const done = second.events.filter((e) => e.event === 'run.done');
    assert.deepEqual(
      done.map((e) => e.status),
      ['completed'],
    );
  });
});

/** A foreach whose elements each write memory then sleep: killed while element 1 sleeps (reference §2.11). */
const EACH = {
  name: 'each',
  steps: {
    s: { kind: 'once' },
    x: {
      kind: 'foreach',
      depends_on: 's',
      over: ['a', 'b', 'c'],
      body: {
        put: { kind: 'memory.set', key: 'item-{{index}}', value: '{{item}}' },
        nap: { kind: 'sleep', depends_on: 'put', duration: '600ms' },
        out: { kind: 'template', depends_on: 'nap', value: '{{item}}' },
      },
    },
    f: { kind: 'finish', depends_on: 'x', output: '{{steps.x.output}}' },
  },
};

describe('a foreach across a SIGKILL', () => {
  it('resumes at the unfinished element: finished elements and committed body steps never run again', async () => {
    const dir = `${tmp.dir}/each`;
    const first = live(dir, EACH);
    await waitUntil(() => starts(first, 'x[1].nap').length > 0, 15_000, 'element 1 sleeping');
    await new Promise((r) => setTimeout(r, 150));
    first.child.kill('SIGKILL');
    await first.exited;
    assert.equal(first.events.filter((e) => e.event === 'run.done').length, 0, 'premise: life 1 died before the end');
    assert.equal(starts(first, 'x[0].out').length, 1, 'premise: element 0 finished in life 1');

    const second = live(dir, EACH);
    assert.equal(await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('hung'), 15_000))]), 0);
    const started = second.events.filter((e) => e.event === 'step.start').map((e) => e.step);
    assert.ok(!started.some((s) => String(s).startsWith('x[0].')), `element 0 ran again: ${started.join(', ')}`);
    assert.ok(!started.includes('x[1].put'), 'the committed put of element 1 ran again');
    assert.deepEqual(
      ['x[1].out', 'x[2].put', 'x[2].out'].filter((s) => !started.includes(s)),
      [],
      `resumed steps: ${started.join(', ')}`,
    );
    const done = second.events.filter((e) => e.event === 'run.done');
    assert.deepEqual(
      done.map((e) => e.status),
      ['completed'],
    );
  });
});

/** P-18: `x` killed in flight (committed `running`, its effect not run); `on_replay` says what the next life does. */
const inFlight = (onReplay?: string) => ({
  name: 'replay',
  steps: {
    s: { kind: 'once' },
    x: { kind: 'memory.set', depends_on: 's', key: 'x', value: 'set', ...(onReplay ? { on_replay: onReplay } : {}) },
    f: { kind: 'finish', depends_on: 'x', output: 'done' },
  },
});

describe('on_replay after a crash (P-18)', () => {
  const named = (life: Life, event: string) => life.events.filter((e) => e.event === event);
  const afterKill = async (policy: string | undefined): Promise<Life> => {
    const dir = `${tmp.dir}/replay-${policy ?? 'default'}`;
    const first = live(dir, inFlight(policy), 'kill:step.running@x');
    assert.equal(await Promise.race([first.exited, new Promise((r) => setTimeout(() => r('hung'), 15_000))]), null);
    assert.equal(starts(first, 'x').length, 1, 'premise: x started in life 1');
    const second = live(dir, inFlight(policy));
    await Promise.race([second.exited, new Promise((r) => setTimeout(r, 15_000))]);
    return second;
  };

  it('retry (default): restore.step.replay, x runs again as attempt 2, the run completes', async () => {
    const second = await afterKill(undefined);
    assert.deepEqual(
      named(second, 'restore.step.replay').map((e) => [e.step, e.attempt]),
      [['x', 1]],
    );
    assert.deepEqual(
      starts(second, 'x').map((e) => e.attempt),
      [2],
    );
    assert.deepEqual(
      named(second, 'run.done').map((e) => e.status),
      ['completed'],
    );
  });

  it('skip: restore.step.skipped, x never runs again, the run completes', async () => {
    const second = await afterKill('skip');
    assert.deepEqual(
      named(second, 'restore.step.skipped').map((e) => e.step),
      ['x'],
    );
    assert.equal(starts(second, 'x').length, 0);
    assert.deepEqual(
      named(second, 'run.done').map((e) => e.status),
      ['completed'],
    );
  });

  it('fail: restore.step.failed, the run fails naming x and the policy', async () => {
    const second = await afterKill('fail');
    assert.deepEqual(
      named(second, 'restore.step.failed').map((e) => e.step),
      ['x'],
    );
    assert.equal(starts(second, 'x').length, 0);
    const done = named(second, 'run.done');
    assert.deepEqual(
      done.map((e) => e.status),
      ['failed'],
    );
    assert.match(
      String(done[0]?.err),
      /step "x" failed first: step was in flight when the process died and its on_replay policy is `fail`/,
    );
  });
});
