// Workflow steps that reach the turn side, over real workers and the scripted model (producers reference §2.8
// `agent`, turn reference §3.2 `message`): an agent step is a real turn whose answer is the step output; a message
// step delivers into another conversation, where it starts a turn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { processGone, waitUntil, within } from '../wait.js';

const YAML = `workflows:
  - name: w
    steps:
      s: {kind: once}
      a:
        kind: agent
        depends_on: s
        instruction: "Count the letters of {{run.workflow}}."
        output_contract: "n is the count"
        output_schema: {type: object, required: [n]}
      m: {kind: message, depends_on: a, to: new, text: "the count is {{steps.a.output.n}}"}
      f: {kind: finish, depends_on: m, output: {n: "CEL: steps.a.output.n", to: "CEL: steps.m.output.conversation"}}
`;

describe('agent and message steps in a real run', () => {
  it('runs the agent turn with the instruction, contract and schema; its JSON reply is the output; the message starts a turn', async () => {
    const playbook: Playbook = {
      turns: [],
      match: [
        { when_contains: 'Count the letters', content: '{"n": 1}' },
        { when_contains: 'the count is 1', content: 'noted' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: YAML });
    try {
      await waitUntil(() => rig.named('run.done').length > 0, 30_000, 'the run ended');
      const [end] = rig.named('run.done');
      assert.equal(end?.['status'], 'completed', JSON.stringify(rig.named('step.fail')));
      const [run] = await rig.store.workflows.listRuns({});
      const output = run?.output as { n: number; to: string };
      assert.equal(output.n, 1);
      assert.match(output.to, /^conv-/);
      const asked = rig.model.requests
        .map((r) => JSON.stringify(r.body))
        .find((b) => b.includes('Count the letters of w.'));
      assert.ok(asked, 'the agent turn reached the model');
      assert.ok(asked.includes('Output contract:') && asked.includes('n is the count'));
      assert.ok(asked.includes('Reply with ONLY one JSON object matching this JSON Schema'));
      await waitUntil(
        () => rig.sup.conversation(output.to)?.messages.some((m) => m.role === 'assistant') === true,
        20_000,
        'the delivered message got its turn',
      );
      const accepted = rig.named('inbox.accepted').map((e) => e['kind']);
      assert.ok(accepted.includes('workflow_step') && accepted.includes('agent_message'), accepted.join(','));
    } finally {
      await rig.close();
    }
  });

  it("a cancelled run cancels its agent step's turn: the worker is gone, the turn ends cancelled", async () => {
    // Without the cancel in turnPorts.ts the turn runs on (its model answers after 60 s): the worker stays.
    const playbook: Playbook = {
      turns: [],
      match: [{ when_contains: 'take forever', delay_ms: 60_000, content: 'x' }],
    };
    const yaml = `workflows:
  - name: w
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: "take forever"}
      f: {kind: finish, depends_on: a}
`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      await waitUntil(() => rig.named('turn.spawn').length === 1, 20_000, "the agent step's turn started");
      const [spawn] = rig.named('turn.spawn');
      const pid = Number(spawn?.['worker_pid']);
      await waitUntil(() => rig.model.requests.length === 1, 20_000, 'the turn called the model');
      assert.equal(processGone(pid), false, 'premise: the worker runs the turn');
      const desk = rig.ports.port('workflows')?.();
      const runId = String(rig.named('run.start')[0]?.['run']);
      assert.equal(await desk?.engine.cancel(runId, 'stop it'), true);
      const outcome = await within(rig.sup.outcomeOf(String(spawn?.['inbox_event'])), 10_000, 'the turn ended');
      assert.equal(outcome.status, 'cancelled');
      await waitUntil(() => processGone(pid), 10_000, "the turn's worker is gone");
      const run = await rig.store.workflows.getRun(runId);
      assert.equal(run?.status, 'cancelled');
      assert.equal(run?.steps['a']?.status, 'cancelled');
    } finally {
      await rig.close();
    }
  });
});
