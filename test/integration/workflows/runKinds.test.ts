// The steps that reach other runs, and `emit`, inside real runs over a real SQLite store (producers reference §2.8
// `workflow.signal|wait|cancel`, `emit`): one run signals, waits on or cancels another; a replayed signal step
// delivers nothing twice; emit notes once per step key.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { StepEmitPorts } from '../../../src/workflows/nodeKind.js';
import { waitUntil } from '../wait.js';
import { named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const WAITER = {
  name: 'waiter',
  steps: {
    m: { kind: 'manual' },
    w: { kind: 'wait', depends_on: 'm', on: 'signal', signal: 'go', timeout: '20s' },
    f: { kind: 'finish', depends_on: 'w', output: 'CEL: steps.w.output' },
  },
};

const SENDER = {
  name: 'sender',
  steps: {
    m: { kind: 'manual' },
    sig: { kind: 'workflow.signal', depends_on: 'm', name: 'go', payload: { n: 7 }, run: '{{inputs.target}}' },
    f: { kind: 'finish', depends_on: 'sig', output: 'CEL: steps.sig.output' },
  },
};

const start = async (life: Awaited<ReturnType<typeof openDesk>>, workflow: string, inputs = {}) => {
  const got = await life.desk.start({
    workflow,
    inputs,
    startKey: `t:${workflow}:${JSON.stringify(inputs)}`,
    principal: null,
    conversation: null,
  });
  assert.ok(got.ok, got.ok ? '' : got.error);
  return got.run.id;
};

describe('workflow.signal step', () => {
  it('delivers to the named run now: {delivered: 1}, and the waiter sees from run:<sender>/<step>', async () => {
    const life = await openDesk(freshDir(), [WAITER, SENDER]);
    try {
      const waiter = await start(life, 'waiter');
      await waitUntil(() => life.desk.engine.get(waiter)?.steps['w']?.status === 'suspended', 5_000, 'w waits');
      const sender = await start(life, 'sender', { target: waiter });
      const sent = await settled(life, sender);
      assert.equal(sent.status, 'completed', sent.error ?? '');
      assert.deepEqual(sent.output, { delivered: 1 });
      const got = await settled(life, waiter);
      assert.equal(got.status, 'completed', got.error ?? '');
      assert.deepEqual(got.output, { signal: 'go', payload: { n: 7 }, from: `run:${sender}/sig` });
    } finally {
      await life.close();
    }
  });

  it('without run reaches every run waiting on the name, and counts them', async () => {
    const broadcast = {
      ...SENDER,
      name: 'broadcast',
      steps: { ...SENDER.steps, sig: { ...SENDER.steps.sig, run: undefined } },
    };
    const life = await openDesk(freshDir(), [WAITER, broadcast]);
    try {
      const a = await start(life, 'waiter', { i: 1 });
      const b = await start(life, 'waiter', { i: 2 });
      for (const id of [a, b])
        await waitUntil(() => life.desk.engine.get(id)?.steps['w']?.status === 'suspended', 5_000, 'waits');
      const sent = await settled(life, await start(life, 'broadcast'));
      assert.deepEqual(sent.output, { delivered: 2 });
      assert.equal((await settled(life, a)).status, 'completed');
      assert.equal((await settled(life, b)).status, 'completed');
    } finally {
      await life.close();
    }
  });

  it('replayed after a restart delivers nothing twice and answers its first count', async () => {
    // The waiter takes two `go` signals in turn: a second delivery by the replay would end its w2 wait.
    const twice = {
      name: 'twice',
      steps: {
        m: { kind: 'manual' },
        w1: { kind: 'wait', depends_on: 'm', on: 'signal', signal: 'go', timeout: '20s' },
        w2: { kind: 'wait', depends_on: 'w1', on: 'signal', signal: 'go', timeout: '1500ms' },
        f: { kind: 'finish', depends_on: 'w2' },
      },
    };
    const dir = freshDir();
    const life = await openDesk(dir, [twice, SENDER]);
    const waiter = await start(life, 'twice');
    await waitUntil(() => life.desk.engine.get(waiter)?.steps['w1']?.status === 'suspended', 5_000, 'w1 waits');
    const sender = await start(life, 'sender', { target: waiter });
    const first = await settled(life, sender);
    assert.deepEqual(first.output, { delivered: 1 });
    await waitUntil(() => life.desk.engine.get(waiter)?.steps['w2']?.status === 'suspended', 5_000, 'w2 waits');
    await life.close();
    // The crash: the sender's record as it was before its end was committed, `sig` still running.
    const crashed = structuredClone(first) as WorkflowRun;
    Object.assign(crashed, { status: 'running', output: null, finished: null });
    Object.assign(crashed.steps['sig'] as object, { status: 'running', output: null, endedMs: null });
    Object.assign(crashed.steps['f'] as object, { status: 'pending', output: null, attempt: 0, endedMs: null });
    const raw = new SqliteStore(dir);
    await raw.workflows.saveRun(crashed);
    await raw.close();
    const again = await openDesk(dir, [twice, SENDER]);
    try {
      const second = await settled(again, sender);
      assert.equal(second.status, 'completed', second.error ?? '');
      assert.deepEqual(
        named(again.events, 'restore.step.replay').map((e) => e.step),
        ['sig'],
        'premise: replayed',
      );
      assert.deepEqual(second.output, { delivered: 1 }, 'the first count');
      const waited = await settled(again, waiter);
      assert.equal(waited.steps['w2']?.status, 'timeout', 'no second signal reached w2');
    } finally {
      await again.close();
    }
  });
});

describe('workflow.wait and workflow.cancel steps', () => {
  const CANCELLER = {
    name: 'canceller',
    steps: {
      m: { kind: 'manual' },
      c: { kind: 'workflow.cancel', depends_on: 'm', run: '{{inputs.target}}', reason: 'no longer needed' },
      w: { kind: 'workflow.wait', depends_on: 'c', run: '{{inputs.target}}', timeout: '5s' },
      f: { kind: 'finish', depends_on: 'w', output: 'CEL: [steps.c.output, steps.w.output]' },
    },
  };

  it('cancels a live run ({ok, run, status: cancelled}) and waits for it: {run, status, output, error}', async () => {
    const life = await openDesk(freshDir(), [WAITER, CANCELLER]);
    try {
      const target = await start(life, 'waiter');
      await waitUntil(() => life.desk.engine.get(target)?.steps['w']?.status === 'suspended', 5_000, 'w waits');
      const done = await settled(life, await start(life, 'canceller', { target }));
      assert.equal(done.status, 'completed', done.error ?? '');
      assert.deepEqual(done.output, [
        { ok: true, run: target, status: 'cancelled' },
        { run: target, status: 'cancelled', output: null, error: 'no longer needed' },
      ]);
    } finally {
      await life.close();
    }
  });

  it('an unknown run fails the step: no such run "<id>"', async () => {
    const life = await openDesk(freshDir(), [CANCELLER]);
    try {
      const done = await settled(life, await start(life, 'canceller', { target: 'nope' }));
      assert.equal(done.status, 'failed');
      assert.equal(done.steps['c']?.error, 'no such run "nope"');
    } finally {
      await life.close();
    }
  });

  it('workflow.wait times out: status timeout, wait timed out', async () => {
    const waitOnly = {
      name: 'waitonly',
      steps: {
        m: { kind: 'manual' },
        w: { kind: 'workflow.wait', depends_on: 'm', run: '{{inputs.target}}', timeout: '300ms' },
        f: { kind: 'finish', depends_on: 'w' },
      },
    };
    const life = await openDesk(freshDir(), [WAITER, waitOnly]);
    try {
      const target = await start(life, 'waiter');
      const done = await settled(life, await start(life, 'waitonly', { target }));
      assert.equal(done.steps['w']?.status, 'timeout');
      assert.equal(done.steps['w']?.error, 'wait timed out');
    } finally {
      await life.close();
    }
  });
});

describe('emit step', () => {
  it('notes once per step key, logs the audit, counts the metric; output = value', async () => {
    const notes: Array<{ conversation: string | null; text: string; key: string }> = [];
    const audits: unknown[] = [];
    const metrics: string[] = [];
    const seenKeys = new Set<string>();
    const emit: StepEmitPorts = {
      async note(req) {
        if (seenKeys.has(req.key)) return;
        seenKeys.add(req.key);
        notes.push(req);
      },
      audit: (fields) => audits.push(fields),
      metric: (workflow, name) => metrics.push(`${workflow}/${name}`),
    };
    const doc = {
      name: 'e',
      steps: {
        s: { kind: 'once' },
        e: {
          kind: 'emit',
          depends_on: 's',
          note: 'reached {{run.workflow}}',
          audit: { who: '{{run.id}}' },
          metric: 'reached',
          value: 'CEL: 1 + 1',
        },
        f: { kind: 'finish', depends_on: 'e', output: 'CEL: steps.e.output' },
      },
    };
    const life = await openDesk(freshDir(), [doc], { ports: { emit } });
    try {
      const [run] = await life.desk.fireOnce();
      assert.ok(run);
      const done = await settled(life, run.id);
      assert.equal(done.status, 'completed', done.error ?? '');
      assert.equal(done.output, 2);
      assert.deepEqual(
        notes.map((x) => [x.conversation, x.text]),
        [[null, `run ${run.id}: reached e`]],
      );
      assert.deepEqual(audits, [{ run: run.id, step: 'e', audit: { who: run.id } }]);
      assert.deepEqual(metrics, ['e/reached']);
    } finally {
      await life.close();
    }
  });
});
