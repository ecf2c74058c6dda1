// Producers reference §4 P-11 and P-14 over the built binary (its config file, SQLite store, JSON-line events):
// a signal start under `concurrency {max_runs: 1, on_overflow: drop}` signalled twice at once starts one run and
// drops the other; a sync child run signals its parent, which takes both the child's output and the signal.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type AgentdRun, eventsNamed, runAgentd, tempStateDir } from './harness.js';

function life(yaml: string): Promise<AgentdRun> {
  const dir = tempStateDir();
  const config = join(dir, 'agentd.yaml');
  writeFileSync(config, yaml);
  return runAgentd(['--config', config, '--state-dir', join(dir, 'state')], { cwd: dir, timeoutMs: 30_000 });
}

// P-11: \`kick\` sends \`go\` twice from two parallel steps (within a few ms); \`w\` waits 2 s on a signal never sent.
const P11 = `lifecycle: {run_until: idle, idle_grace: 300ms}
workflows:
  - name: w
    concurrency: {max_runs: 1, on_overflow: drop}
    steps:
      go: {kind: signal, name: go}
      pend: {kind: wait, depends_on: go, on: signal, signal: never, timeout: 2s, on_error: continue}
      f: {kind: finish, depends_on: pend}
  - name: kick
    steps:
      s: {kind: once}
      one: {kind: workflow.signal, depends_on: s, name: go, payload: {n: 1}}
      two: {kind: workflow.signal, depends_on: s, name: go, payload: {n: 2}}
      f: {kind: finish, depends_on: [one, two], output: {one: "{{steps.one.output}}", two: "{{steps.two.output}}"}}
`;

const P14 = `observability: {log_content: true}
workflows:
  - name: child
    steps:
      m: {kind: manual}
      y: {kind: assign, depends_on: m, value: "CEL: inputs.x * 10"}
      tell: {kind: workflow.signal, depends_on: y, name: child-done, payload: {y: "{{vars.y}}"}}
      f: {kind: finish, depends_on: tell, output: {y: "{{vars.y}}"}}
  - name: parent
    steps:
      s: {kind: once}
      spawn: {kind: workflow, depends_on: s, name: child, mode: sync, inputs: {x: 5}}
      await_signal: {kind: wait, depends_on: s, on: signal, signal: child-done, timeout: 5s}
      f:
        kind: finish
        depends_on: [spawn, await_signal]
        output: {child_y: "{{steps.spawn.output.output.y}}", signal_y: "{{steps.await_signal.output.payload.y}}"}
`;

describe('producer cases P-11 and P-14 over the binary', () => {
  it('P-11: two go signals within 100 ms under drop: one run.start, one run.dropped {reason: concurrency}', async () => {
    const run = await life(P11);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const started = eventsNamed(run, 'run.start').filter((e) => e.workflow === 'w');
    assert.equal(started.length, 1);
    const dropped = eventsNamed(run, 'run.dropped');
    assert.deepEqual(
      dropped.map((e) => [e.workflow, e.reason]),
      [['w', 'concurrency']],
    );
    const sent = eventsNamed(run, 'run.done').find((e) => e.workflow === 'kick');
    assert.equal(sent?.status, 'completed');
    const done = eventsNamed(run, 'run.done').filter((e) => e.workflow === 'w');
    assert.equal(done.length, 1, 'the one run ran to its end');
  });

  it('P-14: the parent completes with {child_y: 50, signal_y: 50} on run.done (log_content) and stdout', async () => {
    const run = await life(P14);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const parent = eventsNamed(run, 'run.done').find((e) => e.workflow === 'parent');
    assert.equal(parent?.status, 'completed', String(parent?.err));
    assert.deepEqual(parent?.output, { child_y: 50, signal_y: 50 });
    assert.deepEqual(JSON.parse(run.stdout), { child_y: 50, signal_y: 50 });
    const child = eventsNamed(run, 'run.done').find((e) => e.workflow === 'child');
    assert.deepEqual(child?.output, { y: 50 });
  });
});
