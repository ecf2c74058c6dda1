// race.min_success, a lost branch's child run, batch.rate, artifacts and search.fetch inside a real job run of the
// built agentd (producers reference §2.8): the run's output on stdout, exit 0, the losing branch's child cancelled.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const YAML = `intelligence:
  endpoints: http://127.0.0.1:9
workflows:
  - name: slow
    steps:
      s: {kind: manual}
      w: {kind: wait, depends_on: s, on: deadline, timeout: 60s}
      f: {kind: finish, depends_on: w}
  - name: main
    steps:
      s: {kind: once}
      r:
        kind: race
        depends_on: s
        min_success: 2
        branches:
          a: {v: {kind: template, value: A}}
          b: {nap: {kind: sleep, duration: 300ms}, v: {kind: template, depends_on: nap, value: B}}
          c: {child: {kind: workflow, name: slow}}
      b: {kind: batch, depends_on: r, over: [1, 2, 3, 4], size: 2, rate: 1/200ms, body: {n: {kind: template, value: "{{batch.index}}"}}}
      keep: {kind: artifact.create, depends_on: b, name: batches, from_step: b}
      read: {kind: artifact.get, depends_on: keep, id: "{{steps.keep.output.id}}"}
      far: {kind: search.fetch, depends_on: read, url: "http://127.0.0.1:9/", on_error: continue}
      f: {kind: finish, depends_on: far, output: {winners: "{{steps.r.output.winners}}", batches: "{{steps.read.output.content}}", fetch: "{{steps.far.output.error}}"}}
`;

describe('race, batch, artifacts and search.fetch in a job', () => {
  it('runs them inside a real run; the losing branch child run is cancelled', async () => {
    const dir = tempStateDir();
    writeFileSync(`${dir}/agent.yaml`, YAML);
    const run = await runAgentd(['--config', `${dir}/agent.yaml`, '--state-dir', `${dir}/state`], {
      timeoutMs: 30_000,
    });
    assert.equal(run.code, 0, run.stderr.slice(-2_000));
    assert.deepEqual(JSON.parse(run.stdout), {
      winners: ['a', 'b'],
      batches: '[0,1]',
      fetch: 'search.fetch: 127.0.0.1:9 resolves to a private address (127.0.0.1)',
    });
    assert.equal(eventsNamed(run, 'step.instance').filter((e) => e.step === 'b').length, 2);
    const store = new SqliteStore(`${dir}/state`);
    try {
      const child = (await store.workflows.listRuns({})).find((r) => r.workflow === 'slow');
      assert.deepEqual([child?.status, child?.error], ['cancelled', 'its parent step "r{c}.child" was cancelled']);
    } finally {
      await store.close();
    }
  });
});
