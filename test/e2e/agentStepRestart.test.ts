// A workflow `agent` (or `think`) step across a SIGKILL of the daemon (producers reference §2.8, §2.11): the turn the
// step accepted replays from the inbox in the next life, and the replayed step finds it by its key instead of
// accepting a second turn; the run completes once with that turn's answer. A think step's turn settings ride on
// the accepted event, so its replayed turn is still a think turn.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { offeredTools, type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { killAndRestart, startDaemon } from './daemon.js';
import { eventsNamed, tempStateDir } from './harness.js';

const ASK = 'Count the letters of w.';

const AGENT_STEP = 'a: {kind: agent, depends_on: s, instruction: "Count the letters of {{run.workflow}}."}';
const THINK_ASK = 'Weigh the options for w';
const THINK_STEP =
  'a: {kind: think, depends_on: s, prompt: "Weigh the options for {{run.workflow}}", output_schema: {type: object}}';

function yaml(model: ScriptedModel, step = AGENT_STEP): string {
  return `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: ${model.url}
workflows:
  - name: w
    steps:
      s: {kind: once}
      ${step}
      f: {kind: finish, depends_on: a, output: "{{steps.a.output}}"}
`;
}

const asks = (model: ScriptedModel, text: string) =>
  model.requests.filter((r) => JSON.stringify(r.body).includes(text));
const asked = (model: ScriptedModel) => asks(model, ASK).length;

describe('an agent step across a crash', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  /** Starts a daemon whose step's turn hangs on the model, kills it mid-step and restarts it on a fast model. */
  async function crashMidStep(step: string, ask: string, answer: string) {
    const dir = tempStateDir();
    const slow = await startScriptedModel({
      turns: [],
      match: [{ when_contains: ask, delay_ms: 60_000, content: answer }],
    });
    models.push(slow);
    const life1 = await startDaemon(dir, yaml(slow, step));
    await waitUntil(() => asks(slow, ask).length === 1, 30_000, "the step's turn called the model");
    const fast = await startScriptedModel({ turns: [], match: [{ when_contains: ask, content: answer }] });
    models.push(fast);
    const life2 = await killAndRestart(life1, dir, yaml(fast, step));
    assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was mid-step at the kill');
    return { dir, fast, life2 };
  }

  /** The run ended once, completed, in the second life. */
  async function completedOnce(life2: Awaited<ReturnType<typeof crashMidStep>>['life2']): Promise<void> {
    await waitUntil(() => eventsNamed(life2, 'run.done').length > 0, 30_000, 'the run ended in life 2');
    assert.deepEqual(
      eventsNamed(life2, 'run.done').map((e) => e.status),
      ['completed'],
    );
  }

  it('resumes the step on the turn it accepted: one turn, the run completes once', async () => {
    const { dir, fast, life2 } = await crashMidStep(AGENT_STEP, ASK, '1');
    try {
      await completedOnce(life2);
      assert.deepEqual(
        eventsNamed(life2, 'restore.step.replay').map((e) => e.step),
        ['a'],
      );
      // Keyed by the bare attempt (2 after the replay), the step accepted a second turn on wf-<run>-a-2 here: the
      // model was asked twice (the replayed event and the new one) and a second conversation was stored.
      assert.equal(asked(fast), 1, 'one turn in life 2: the replayed one');
      const accepted = eventsNamed(life2, 'inbox.accepted').filter((e) => e.kind === 'workflow_step');
      assert.equal(accepted.length, 0, 'the replayed step accepted no new turn');
      assert.equal(eventsNamed(life2, 'run.start').length, 0, 'no second run');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const heads = await store.conversations.heads();
      const steps = heads.map((h) => h.id).filter((id) => id.startsWith('wf-'));
      assert.equal(steps.length, 1, `one agent-step conversation: ${steps.join(', ')}`);
      assert.match(String(steps[0]), /-a-1$/);
      const runs = await store.workflows.listRuns({});
      assert.deepEqual(
        runs.map((r) => [r.status, r.output]),
        [['completed', '1']],
      );
    } finally {
      await store.close();
    }
  });

  it("replays a think step's turn with its settings: the reasoning prompt, no tools, one turn", async () => {
    const { fast, life2 } = await crashMidStep(THINK_STEP, THINK_ASK, '{"n": 7}');
    try {
      await completedOnce(life2);
      const replayed = asks(fast, THINK_ASK);
      assert.equal(replayed.length, 1, 'one turn in life 2: the replayed one');
      assert.ok(JSON.stringify(replayed[0]?.body).includes('You are the reasoning module of'), 'still a think turn');
      assert.deepEqual(offeredTools(replayed[0]), [], 'with no tools');
      const accepted = eventsNamed(life2, 'inbox.accepted').filter((e) => e.kind === 'workflow_step');
      assert.equal(accepted.length, 0, 'the replayed step accepted no new turn');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
  });
});
