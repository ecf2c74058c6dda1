// A turn drives workflows through its tools over real workers and the scripted model (producers reference §2.12,
// §2.14): workflow.create stores a definition, workflow.run starts it, workflow.wait suspends the turn until the run
// ends, and the conversation that started the run gets the workflow_finished note.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook, Turn } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { notes, toolResults } from '../subagents/subagentParts.js';
import { waitUntil } from '../wait.js';

const DEFINITION = {
  name: 'double',
  description: 'Doubles x after a short nap.',
  steps: {
    s: { kind: 'manual' },
    nap: { kind: 'sleep', depends_on: 's', duration: '300ms' },
    v: { kind: 'assign', depends_on: 'nap', value: 'CEL: inputs.x * 2' },
    f: { kind: 'finish', depends_on: 'v', output: { doubled: '{{vars.v}}' } },
  },
};

describe('workflow tools in a turn', () => {
  it('creates, runs and waits for a workflow; the run pins a stored definition and the conversation gets the note', async () => {
    // The wait's run id is only known once the run started: the test fills it in before the model answers.
    const waitTurn: Turn = {
      delay_ms: 1_000,
      tool_calls: [{ name: 'workflow.wait', arguments: { run: 'unknown', timeout: '10s' } }],
    };
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'workflow.create', arguments: { definition: DEFINITION } }] },
        { tool_calls: [{ name: 'workflow.run', arguments: { name: 'double', inputs: { x: 21 } } }] },
        waitTurn,
        { tool_calls: [{ name: 'workflow.list', arguments: {} }] },
        { content: 'done' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [workflow_finished, workflow_failed]\n' });
    try {
      const outcome = answer(rig, 'boss', 'go');
      await waitUntil(() => rig.named('run.start').length > 0, 20_000, 'the run started');
      const runId = String(rig.named('run.start')[0]?.['run']);
      waitTurn.tool_calls = [{ name: 'workflow.wait', arguments: { run: runId, timeout: '10s' } }];
      assert.equal((await outcome).status, 'completed');

      const [created, ran, waited, listed] = toolResults(rig, 'boss');
      assert.equal(created?.is_error, false, JSON.stringify(created?.content));
      assert.deepEqual(Object.keys(created?.content as object).sort(), ['armed', 'hash', 'name']);
      assert.deepEqual(ran?.content, { run: runId, status: 'running', workflow: 'double' });
      assert.deepEqual(waited?.content, { run: runId, status: 'completed', output: { doubled: 42 }, error: null });
      const workflows =
        (listed?.content as { workflows: Array<{ name: string; starts: unknown }> } | undefined)?.workflows ?? [];
      assert.deepEqual(
        workflows.map((w) => [w.name, w.starts]),
        [['double', [{ node: 's', kind: 'manual' }]]],
      );

      await waitUntil(() => notes(rig.sup.conversation('boss')?.messages).length > 0, 5_000, 'the note arrived');
      assert.deepEqual(notes(rig.sup.conversation('boss')?.messages), [
        `workflow double run ${runId} completed: {"doubled":42}`,
      ]);
      const stored = await rig.store.workflows.listDefinitions();
      assert.deepEqual(
        stored.map((d) => [d.name, d.version]),
        [['double', 1]],
      );
    } finally {
      await rig.close();
    }
  });
});

describe('workflow.signal from a turn', () => {
  it("reaches the caller's run waiting on the signal without naming it, and counts it", async () => {
    const definition = {
      name: 'gate',
      steps: {
        s: { kind: 'manual' },
        w: { kind: 'wait', depends_on: 's', on: 'signal', signal: 'open', timeout: '30s' },
        f: { kind: 'finish', depends_on: 'w', output: '{{steps.w.output.payload}}' },
      },
    };
    // Sent once the wait is armed: the test releases this turn's call after `wait.armed`.
    const signalTurn: Turn = { delay_ms: 3_000, content: 'not yet' };
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'workflow.create', arguments: { definition } }] },
        { tool_calls: [{ name: 'workflow.run', arguments: { name: 'gate' } }] },
        signalTurn,
        { tool_calls: [{ name: 'workflow.wait', arguments: { run: 'unknown', timeout: '10s' } }] },
        { content: 'done' },
      ],
    };
    const rig = await startRig(playbook);
    try {
      const outcome = answer(rig, 'boss', 'go');
      await waitUntil(() => rig.named('wait.armed').length > 0, 20_000, 'the wait armed');
      const runId = String(rig.named('run.start')[0]?.['run']);
      signalTurn.tool_calls = [{ name: 'workflow.signal', arguments: { name: 'open', payload: { n: 7 } } }];
      delete signalTurn.content;
      const waitTurn = playbook.turns[3] as Turn;
      waitTurn.tool_calls = [{ name: 'workflow.wait', arguments: { run: runId, timeout: '10s' } }];
      assert.equal((await outcome).status, 'completed');
      const [, , signalled, waited] = toolResults(rig, 'boss');
      assert.deepEqual(signalled?.content, { delivered: 1 });
      assert.deepEqual(waited?.content, { run: runId, status: 'completed', output: { n: 7 }, error: null });
    } finally {
      await rig.close();
    }
  });
});
