// A run of an `mcp.tool` step, an `agent` step and a `human` step across a SIGKILL of the daemon between each pair
// (issue 16's acceptance; producers reference §2.11): for each boundary a fresh store whose first life dies at
// `step.after_done@<step>` and whose second life finishes the run. Across both lives the MCP server sees each
// idempotency key at most once per attempt, the model is asked for the agent step once per attempt, the person is
// asked once (a question answered before the kill is not asked again) and the run finishes once.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type McpTestServer, startMcpTestServer } from '../doubles/mcpTestServer.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil, within } from '../integration/wait.js';
import { type Daemon, startDaemon } from './daemon.js';
import { type AgentdRun, eventsNamed, runAgentd, tempStateDir } from './harness.js';
import { asking, OPERATOR_TOKEN, operatorYaml } from './humanGate.js';

const ASK = 'Name the colour of';
const ANSWER = 'yes, ship teal';

function yaml(model: ScriptedModel, mcp: McpTestServer): string {
  return operatorYaml(model, [
    'mcp:',
    '  servers:',
    `    tools: {url: "${mcp.url}"}`,
    'workflows:',
    '  - name: mixed',
    '    steps:',
    '      s: {kind: once}',
    '      m: {kind: mcp.tool, depends_on: s, server: tools, tool: echo, args: {text: "sky-{{run.workflow}}"}}',
    `      a: {kind: agent, depends_on: m, instruction: "${ASK} {{steps.m.output.text}}."}`,
    '      h: {kind: human, depends_on: a, question: "Ship {{steps.a.output}}?", timeout: 5m}',
    '      f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}',
  ]);
}

type Life = Pick<AgentdRun, 'events'>;

/** Attempts of `step` started over every life given. */
const attempts = (step: string, ...lives: Life[]) =>
  lives.flatMap((l) => eventsNamed(l, 'step.start').filter((e) => e.step === step)).length;

/** Answers the question `task` as the operator on the daemon at `url`. */
async function answer(url: string, task: string): Promise<void> {
  const answered = await runAgentd(['answer', task, ANSWER], {
    env: { AGENTD_URL: url, AGENTD_TOKEN: OPERATOR_TOKEN },
  });
  assert.equal(answered.code, 0, answered.stderr);
}

/** Life 1 killed at `step.after_done@<step>` before the question is asked: it needs no answer, only its death. */
async function dieBeforeAsking(dir: string, config: string, step: string): Promise<AgentdRun> {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, config);
  const env = { AGENTD_STATE_DIR: dir, OPERATOR_TOKEN, AGENTD_TEST_KILL_AT: `step.after_done@${step}` };
  return runAgentd(['--config', file], { env, timeoutMs: 30_000 });
}

/** Life 1 killed once the human step's end is committed: the question is asked and answered in this life. */
async function dieAfterAnswer(dir: string, config: string): Promise<Daemon> {
  const life = await startDaemon(dir, config, { OPERATOR_TOKEN, AGENTD_TEST_KILL_AT: 'step.after_done@h' });
  await waitUntil(() => asking(life.events).length === 1, 30_000, 'the question is asked in life 1');
  const exited = new Promise((resolve) => life.child.once('exit', (_code, signal) => resolve(signal)));
  // The daemon may die before it replies to the answer: only its death matters here.
  await runAgentd(['answer', String(asking(life.events)[0]), ANSWER], {
    env: { AGENTD_URL: life.url, AGENTD_TOKEN: OPERATOR_TOKEN },
  });
  assert.equal(await within(exited, 10_000, 'life 1 dies at the kill point'), 'SIGKILL');
  return life;
}

/** Life 2: answers the question if it is asked (only when life 1 died before asking), then waits for the end. */
async function finish(dir: string, config: string, answered: boolean): Promise<Daemon> {
  const life = await startDaemon(dir, config, { OPERATOR_TOKEN });
  try {
    if (!answered) {
      await waitUntil(() => asking(life.events).length > 0, 30_000, 'the question is asked in life 2');
      await answer(life.url, String(asking(life.events)[0]));
    }
    await waitUntil(() => eventsNamed(life, 'run.done').length > 0, 30_000, 'the run ended in life 2');
  } finally {
    assert.equal(await life.stop(), 0, life.stderr().slice(-2000));
  }
  return life;
}

async function storedRuns(dir: string): Promise<unknown[]> {
  const store = new SqliteStore(dir);
  try {
    return (await store.workflows.listRuns({})).map((r) => [r.status, r.output]);
  } finally {
    await store.close();
  }
}

describe('an mcp.tool, agent and human run killed between each pair of steps', () => {
  let model: ScriptedModel;
  let mcp: McpTestServer;
  before(async () => {
    model = await startScriptedModel({ turns: [], match: [{ when_contains: ASK, content: 'teal' }] });
    mcp = await startMcpTestServer();
  });
  after(async () => {
    await model.close();
    await mcp.close();
  });

  for (const step of ['m', 'a', 'h']) {
    it(`resumes after a kill once "${step}" ended: one call per key and attempt, one turn, one question`, async () => {
      const dir = tempStateDir();
      const config = yaml(model, mcp);
      const [calls, asks] = [mcp.calls.length, model.requests.length];
      const life1 = step === 'h' ? await dieAfterAnswer(dir, config) : await dieBeforeAsking(dir, config, step);
      if ('signal' in life1)
        assert.equal(life1.signal, 'SIGKILL', `premise: life 1 died: ${life1.stderr.slice(-1500)}`);
      assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was live at the kill');
      const life2 = await finish(dir, config, step === 'h');

      assert.deepEqual(
        eventsNamed(life2, 'run.done').map((e) => e.status),
        ['completed'],
        'the run finished once',
      );
      assert.equal(eventsNamed(life2, 'run.start').length, 0, 'no second run');
      assert.equal(eventsNamed(life2, 'restore.step.replay').length, 0, 'nothing was in flight at the kill');
      assert.equal(attempts(step, life1), 1, `premise: ${step} ran in life 1`);
      assert.equal(attempts(step, life2), 0, `${step} did not run again in life 2`);
      const seen = mcp.calls
        .slice(calls)
        .map((c) => `${c.meta?.['agent/idempotency_key']}#${c.meta?.['agent/attempt']}`);
      assert.equal(new Set(seen).size, seen.length, `each key at most once per attempt: ${seen.join(', ')}`);
      assert.equal(seen.length, attempts('m', life1, life2), 'one call per attempt of m');
      assert.equal(seen.length, 1, 'm ran once: the kill came after its end was committed');
      const turns = model.requests.slice(asks).filter((r) => JSON.stringify(r.body).includes(ASK)).length;
      assert.equal(turns, attempts('a', life1, life2), 'the model was asked once per attempt of a');
      assert.equal(turns, 1);
      const questions = [...asking(life1.events), ...asking(life2.events)];
      assert.equal(questions.length, 1, `the person was asked once: ${questions.join(', ')}`);
      assert.deepEqual(await storedRuns(dir), [['completed', ANSWER]]);
    });
  }
});
