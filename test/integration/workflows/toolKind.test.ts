// The `tool` step in real runs (producers reference §2.4, §2.8): agentd's own internal tools called for the run —
// memory, message.send into another conversation (which starts a turn), and workflow.status (a child run is
// `kind: workflow`'s).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

const YAML = `workflows:
  - name: child
    steps:
      m: {kind: manual}
      f: {kind: finish, depends_on: m, output: "CEL: inputs.x + 1"}
  - name: w
    steps:
      s: {kind: once}
      put: {kind: tool, depends_on: s, name: memory.set, args: {key: colour, value: "{{run.workflow}}-blue"}}
      get: {kind: tool, depends_on: put, name: memory.get, args: {key: colour}}
      tell: {kind: tool, depends_on: get, name: message.send, args: {to: new, text: "colour is {{steps.get.output.value}}"}}
      kid: {kind: workflow, depends_on: tell, name: child, inputs: {x: 41}}
      bad: {kind: tool, depends_on: kid, name: workflow.status, args: {run: 7}, on_error: continue}
      f:
        kind: finish
        depends_on: bad
        output: {got: "{{steps.get.output}}", to: "{{steps.tell.output.conversation}}", kid: "{{steps.kid.output}}", bad: "{{steps.bad.output}}"}
`;

describe('tool steps in a real run', () => {
  it("calls memory, message.send and workflow.status as the run; an invalid call fails the step with the tool's error", async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: 'colour is w-blue', content: 'noted' }] };
    const rig = await startRig(playbook, {}, { yaml: YAML });
    try {
      await waitUntil(() => rig.named('run.done').some((e) => e['workflow'] === 'w'), 30_000, 'the run ended');
      const runs = await rig.store.workflows.listRuns({});
      const run = runs.find((r) => r.workflow === 'w');
      assert.equal(run?.status, 'completed', String(run?.error));
      const out = run?.output as { got: unknown; to: string; kid: { status: string; output: unknown }; bad: unknown };
      assert.equal((out.got as { value?: unknown }).value, 'w-blue');
      assert.equal((await rig.store.memory.get('colour', Date.now()))?.value, 'w-blue');
      assert.match(out.to, /^conv-/);
      assert.equal(out.kid.status, 'completed');
      assert.equal(out.kid.output, 42);
      assert.match(JSON.stringify(out.bad), /tool workflow\.status: invalid arguments for workflow\.status/);
      await waitUntil(
        () => rig.sup.conversation(out.to)?.messages.some((m) => m.role === 'assistant') === true,
        20_000,
        'the delivered message got its turn',
      );
    } finally {
      await rig.close();
    }
  });
});
