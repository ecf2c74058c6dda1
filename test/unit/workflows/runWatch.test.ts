// What an operator sees of runs (issue 16 item 7): the live runs as status shows them, counters by status, and the
// activity line of a step in a run a conversation started.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { createLogger } from '../../../src/obs/log.js';
import { Metrics } from '../../../src/obs/metrics.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { endRun, newRun } from '../../../src/workflows/runState.js';
import { liveRunViews, runWatch, stepMove } from '../../../src/workflows/runWatch.js';

const loaded = loadWorkflow({
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    nap: { kind: 'sleep', depends_on: 's', duration: '1h' },
    f: { kind: 'finish', depends_on: 'nap' },
  },
});
assert.ok(loaded.ok);
const DEF = loaded.def;

function run(id: string, principal: string | null, conversation: string | null, created: number): WorkflowRun {
  const origin = { workflow: 'w', id, node: 's', inputs: {}, payload: null, startKey: id, principal, conversation };
  const r = newRun(DEF, origin, created);
  r.steps['nap'] = { ...(r.steps['nap'] as WorkflowRun['steps'][string]), status: 'suspended', attempt: 1 };
  return r;
}

describe('liveRunViews', () => {
  it('shows each live run at its running or waiting steps, oldest first, a principal its own only', () => {
    const runs = [run('b', 'alice', 'c1', 20), run('a', null, null, 10)];
    const all = liveRunViews(runs);
    assert.deepEqual(
      all.map((v) => [v.run, v.steps]),
      [
        ['a', [{ id: 'nap', kind: 'sleep', status: 'suspended', attempt: 1 }]],
        ['b', [{ id: 'nap', kind: 'sleep', status: 'suspended', attempt: 1 }]],
      ],
    );
    assert.deepEqual(
      liveRunViews(runs, 'alice').map((v) => v.run),
      ['b'],
    );
    assert.deepEqual(liveRunViews(runs, 'bob'), []);
  });
});

describe('runWatch', () => {
  it('counts runs and ended steps by status, gauges the live runs, and logs a conversation run step as activity', async () => {
    const metrics = new Metrics();
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
    const watch = runWatch({ metrics, log }, () => 3);
    const r = run('x', 'alice', 'c1', 0);
    watch.started(r);
    watch.step(r, 'nap');
    r.steps['nap'] = { ...(r.steps['nap'] as WorkflowRun['steps'][string]), status: 'done' };
    watch.step(r, 'nap');
    r.status = 'failed';
    watch.ended(r);
    const text = await metrics.render();
    assert.match(text, /^agentd_runs_started_total 1$/m);
    assert.match(text, /^agentd_runs_total\{status="failed"\} 1$/m);
    assert.match(text, /^agentd_steps_total\{status="done"\} 1$/m);
    assert.doesNotMatch(text, /agentd_steps_total\{status="suspended"\}/, 'a waiting step is not an ended one');
    assert.match(text, /^agentd_runs_active 3$/m);
    const activity = lines.filter((l) => l['event'] === 'activity');
    assert.deepEqual(
      activity.map((l) => [l['ctx'], l['run'], l['step'], l['kind'], l['status']]),
      [
        ['c1', 'x', 'nap', 'sleep', 'suspended'],
        ['c1', 'x', 'nap', 'sleep', 'done'],
      ],
    );
    // A run no conversation started has no conversation to show activity on.
    watch.step(run('y', null, null, 0), 'nap');
    assert.equal(lines.filter((l) => l['event'] === 'activity').length, 2);
  });
});

describe('stepMove', () => {
  it('reads a step move from each logged step event: a retry is a failed attempt, the run end cancels', () => {
    const r = run('z', null, null, 0);
    // `nap` is suspended: the run's end cancels it and logs that end (before, endRun logged only run.done).
    const moves = endRun(r, 'cancelled', 'enough', null, 5).map(stepMove);
    assert.deepEqual(moves, [{ step: 'nap', status: 'cancelled' }, null]);
    const retry = { event: 'step.retry', fields: { run: 'z', step: 'nap', attempt: 1, backoff_ms: 100 } };
    assert.deepEqual(stepMove(retry), { step: 'nap', status: 'failed' });
    assert.deepEqual(stepMove({ event: 'wait.resolved', fields: { run: 'z', step: 'nap' } }), null);
  });
});
