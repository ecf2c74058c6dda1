// Workflow runs across a SIGKILL at the engine's test-only kill points (issue 16's durability acceptance; producers
// reference §2.11, case P-16): `AGENTD_TEST_KILL_AT=<point>@<step>` kills the daemon between two steps (or inside
// one) in life 1; life 2 resumes the run from its last committed step. Between steps every step starts exactly
// once across both lives; a step killed before its end was committed replays once and finds what its first
// attempt did (the subagent it ran, the answer a person gave) instead of doing it again.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil, within } from '../integration/wait.js';
import { type Daemon, startDaemon } from './daemon.js';
import { type AgentdRun, eventsNamed, runAgentd, tempStateDir } from './harness.js';
import { asking as askingIn, gateYaml, OPERATOR_TOKEN } from './humanGate.js';

const SUB = 'You are a subagent of';
const CHAIN = ['a', 'b', 'sub', 'c', 'f'];

function jobYaml(model: ScriptedModel): string {
  return `intelligence:
  endpoints: ${model.url}
workflows:
  - name: w
    steps:
      s: {kind: once}
      a: {kind: memory.set, depends_on: s, key: a, value: 1}
      b: {kind: memory.set, depends_on: a, key: b, value: 2}
      sub: {kind: subagent, depends_on: b, instruction: "count the letters"}
      c: {kind: memory.set, depends_on: sub, key: c, value: "{{steps.sub.output.result}}"}
      f: {kind: finish, depends_on: c, output: done}
`;
}

/** Step starts per step id, over every life given. */
function starts(...lives: Array<Pick<AgentdRun, 'events'>>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const life of lives)
    for (const e of eventsNamed(life, 'step.start')) counts[String(e.step)] = (counts[String(e.step)] ?? 0) + 1;
  return counts;
}

async function twoLives(dir: string, yaml: string, point: string): Promise<[AgentdRun, AgentdRun]> {
  const config = `${dir}/agent.yaml`;
  writeFileSync(config, yaml);
  const args = ['--config', config, '--state-dir', `${dir}/state`];
  const life1 = await runAgentd(args, { env: { AGENTD_TEST_KILL_AT: point }, timeoutMs: 30_000 });
  const life2 = await runAgentd(args, { timeoutMs: 30_000 });
  return [life1, life2];
}

async function memoryOf(dir: string): Promise<unknown[]> {
  const store = new SqliteStore(`${dir}/state`);
  try {
    const values = [];
    for (const key of ['a', 'b', 'c']) values.push((await store.memory.get(key, Date.now()))?.value);
    const runs = await store.workflows.listRuns({});
    assert.deepEqual(
      runs.map((r) => [r.status, r.output]),
      [['completed', 'done']],
      'one run, completed once',
    );
    return values;
  } finally {
    await store.close();
  }
}

describe('a workflow run killed between steps (P-16)', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  for (const step of ['a', 'b', 'sub', 'c']) {
    it(`resumes after a kill once "${step}" ended: every step ran once, the run finished once`, async () => {
      model ??= await startScriptedModel({ turns: [], match: [{ when_contains: SUB, content: '7' }] });
      const dir = tempStateDir();
      const [life1, life2] = await twoLives(dir, jobYaml(model), `step.after_done@${step}`);
      assert.equal(life1.signal, 'SIGKILL', `premise: life 1 died at the kill point: ${life1.stderr.slice(-1500)}`);
      assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was live at the kill');
      assert.equal(life2.code, 0, life2.stderr.slice(-2000));
      assert.equal(life2.stdout, 'done\n', 'life 2 prints the output exactly once');
      assert.deepEqual(
        starts(life1, life2),
        Object.fromEntries(CHAIN.map((s) => [s, 1])),
        'each step started once across both lives',
      );
      assert.equal(eventsNamed(life2, 'restore.step.replay').length, 0, 'nothing was in flight');
      const spawns = eventsNamed(life1, 'subagent.spawn').length + eventsNamed(life2, 'subagent.spawn').length;
      assert.equal(spawns, 1, 'one subagent');
      assert.deepEqual(await memoryOf(dir), [1, 2, 7]);
    });
  }

  it('replays a subagent step killed after its child ended: the same child, no second spawn', async () => {
    model ??= await startScriptedModel({ turns: [], match: [{ when_contains: SUB, content: '7' }] });
    const asked = model.requests.length;
    const dir = tempStateDir();
    const [life1, life2] = await twoLives(dir, jobYaml(model), 'step.before_done@sub');
    assert.equal(life1.signal, 'SIGKILL', `premise: life 1 died at the kill point: ${life1.stderr.slice(-1500)}`);
    assert.equal(eventsNamed(life1, 'subagent.result').length, 1, "premise: the child ended before the step's end");
    assert.equal(life2.code, 0, life2.stderr.slice(-2000));
    assert.equal(life2.stdout, 'done\n');
    assert.deepEqual(
      eventsNamed(life2, 'restore.step.replay').map((e) => [e.step, e.attempt]),
      [['sub', 1]],
    );
    assert.equal(eventsNamed(life2, 'subagent.spawn').length, 0, 'the replayed step found its child');
    assert.equal(model.requests.length - asked, 1, 'the model was asked once for the child');
    assert.deepEqual(starts(life1, life2), { a: 1, b: 1, sub: 2, c: 1, f: 1 });
    assert.deepEqual(await memoryOf(dir), [1, 2, 7]);
  });

  it('replays a memory.set killed inside its effect: attempt 2, the same idempotency key, one run', async () => {
    model ??= await startScriptedModel({ turns: [], match: [{ when_contains: SUB, content: '7' }] });
    const dir = tempStateDir();
    const [life1, life2] = await twoLives(dir, jobYaml(model), 'step.running@b');
    assert.equal(life1.signal, 'SIGKILL');
    assert.equal(life2.code, 0, life2.stderr.slice(-2000));
    assert.equal(life2.stdout, 'done\n');
    assert.deepEqual(
      eventsNamed(life2, 'step.start')
        .filter((e) => e.step === 'b')
        .map((e) => e.attempt),
      [2],
    );
    assert.deepEqual(starts(life1, life2), { a: 1, b: 2, sub: 1, c: 1, f: 1 });
    assert.deepEqual(await memoryOf(dir), [1, 2, 7]);
  });
});

const daemonYaml = (model: ScriptedModel) =>
  gateYaml(model, 'ship', [
    's: {kind: once}',
    'm: {kind: memory.set, depends_on: s, key: asked, value: true}',
    'h: {kind: human, depends_on: m, question: "Ship it?", timeout: 5m}',
    'f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}',
  ]);
const asking = (d: Daemon) => askingIn(d.events);

describe('a human step answered just before a crash', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  // human.answered: the answer is on the task, neither the task's end nor the step's is committed.
  // step.before_done@h: the task ended completed with the answer, the step's end is not committed.
  for (const point of ['human.answered', 'step.before_done@h']) {
    it(`takes the answer given in life 1 (kill at ${point}): no second question, the run completes`, async () => {
      model ??= await startScriptedModel({ turns: [] });
      const dir = tempStateDir();
      const env = { OPERATOR_TOKEN };
      const life1 = await startDaemon(dir, daemonYaml(model), { ...env, AGENTD_TEST_KILL_AT: point });
      await waitUntil(() => asking(life1).length === 1, 30_000, 'the question is asked');
      const [task] = asking(life1);
      const exited = new Promise((resolve) => life1.child.once('exit', (_code, signal) => resolve(signal)));
      // The daemon may die before it answers the answer: only its death matters here.
      await runAgentd(['answer', String(task), 'yes, ship it'], {
        env: { AGENTD_URL: life1.url, AGENTD_TOKEN: OPERATOR_TOKEN },
      });
      assert.equal(await within(exited, 10_000, 'life 1 dies at the kill point'), 'SIGKILL');
      assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was live at the kill');
      const life2 = await startDaemon(dir, daemonYaml(model), env);
      try {
        await waitUntil(
          () => eventsNamed(life2, 'run.done').length > 0 || asking(life2).length > 0,
          30_000,
          'the run ends or asks again',
        );
        assert.deepEqual(asking(life2), [], 'the question was not asked again');
        assert.deepEqual(
          eventsNamed(life2, 'restore.step.replay').map((e) => e.step),
          ['h'],
        );
        assert.deepEqual(
          eventsNamed(life2, 'run.done').map((e) => e.status),
          ['completed'],
        );
        assert.equal(eventsNamed(life2, 'step.start').filter((e) => e.step === 'm').length, 0, 'm ran in life 1 only');
      } finally {
        assert.equal(await life2.stop(), 0);
      }
      const store = new SqliteStore(dir);
      try {
        const runs = await store.workflows.listRuns({});
        assert.deepEqual(
          runs.map((r) => [r.status, r.output]),
          [['completed', 'yes, ship it']],
        );
        const stored = await store.tasks.get(String(task));
        assert.deepEqual([stored?.state, stored?.result], ['completed', 'yes, ship it']);
      } finally {
        await store.close();
      }
    });
  }
});
