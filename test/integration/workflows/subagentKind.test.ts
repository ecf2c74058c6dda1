// The workflow `subagent` step over real workers and the scripted model (producers reference §2.8, §1.4, §5 items
// 12, 13, 22): a template's child answers the step, its output_schema re-asked and held; its spend reaches the
// instance window and the run; a cancelled run takes its child down; an exhausted run stops its child with the
// reason; a child that does not complete fails the step (agentd left it `done`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chargedTokens } from '../../../src/protocol/usage.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { type Rig, startRig } from '../harness.js';
import { notes, SUB } from '../subagents/subagentParts.js';
import { processGone, waitUntil } from '../wait.js';

const TEMPLATED = `intelligence:
  budget: {windows: [{per: hour, tokens: 1000000}]}
subagents:
  templates:
    counter:
      instruction: "Count the {{what}}."
      params: {what: {type: string, required: true}}
workflows:
  - name: w
    steps:
      s: {kind: once}
      sub:
        kind: subagent
        depends_on: s
        template: counter
        params: {what: "letters of {{run.workflow}}"}
        output_schema: {type: object, properties: {n: {type: integer}}, required: [n]}
      f: {kind: finish, depends_on: sub, output: "CEL: steps.sub.output.result.n"}
`;

function workflow(step: string, limits = ''): string {
  return `workflows:
  - name: w
${limits}    steps:
      s: {kind: once}
      sub: {kind: subagent, depends_on: s, ${step}}
      f: {kind: finish, depends_on: sub, output: "{{steps.sub.output}}"}
`;
}

async function runEnd(rig: Rig): Promise<Record<string, unknown>> {
  await waitUntil(() => rig.named('run.done').length > 0, 30_000, 'the run ended');
  return rig.named('run.done')[0] ?? {};
}

const groupGone = (pgid: number): boolean => processGone(-pgid);

describe('the subagent step', () => {
  it("runs a template's child in sync mode: its schema-held answer is the output, its spend reaches the run", async () => {
    const playbook: Playbook = {
      turns: [],
      match: [
        { when_contains: 'Count the letters of w.', times: 1, content: 'about one' },
        { when_contains: 'Count the letters of w.', content: '{"n": 1}' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: TEMPLATED });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'completed', String(end['err']));
      const [run] = await rig.store.workflows.listRuns({});
      assert.equal(run?.output, 1);
      assert.deepEqual(run?.steps['sub']?.output, {
        handle: 'sub-1',
        status: 'completed',
        result: { n: 1 },
        error: null,
      });
      const spawn = rig.named('subagent.spawn');
      assert.deepEqual(
        spawn.map((e) => [e['handle'], e['mode'], e['depth']]),
        [['sub-1', 'sync', 1]],
      );
      const subRequests = rig.model.requests.filter((r) => JSON.stringify(r.body).includes(SUB));
      assert.equal(subRequests.length, 2, 'the answer that broke output_schema was re-asked');

      const [record] = await rig.store.subagents.list();
      assert.equal(record?.requested_by.run, run?.id);
      assert.equal(record?.requested_by.step, 'sub');
      const spent = chargedTokens(record?.tokens ?? { input_tokens: 0, output_tokens: 0 });
      assert.ok(spent > 0, 'premise: the scripted model reports usage');
      assert.equal(run?.tokens, spent, "the child's spend counts against the run");
      const windows = await rig.store.budget.load();
      const instance = windows.find((c) => c.scope === 'instance' && c.window === 'hour');
      assert.ok((instance?.tokens ?? 0) >= spent, `the instance window holds the spend: ${JSON.stringify(windows)}`);
      assert.deepEqual(notes(rig.sup.conversation('root')?.messages), [], 'a sync step child leaves no note');
    } finally {
      await rig.close();
    }
  });

  it('async mode answers the handle at once and the step does not wait', async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: SUB, delay_ms: 1_500, content: 'late' }] };
    const rig = await startRig(playbook, {}, { yaml: workflow('instruction: "slow work", mode: async') });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'completed');
      const [run] = await rig.store.workflows.listRuns({});
      assert.deepEqual(run?.output, { handle: 'sub-1', status: 'running' });
      assert.equal(rig.named('subagent.result').length, 0, 'the run ended before its child did');
      await waitUntil(() => rig.named('subagent.result').length === 1, 20_000, 'the child finished after the run');
    } finally {
      await rig.close();
    }
  });

  it('a cancelled run cancels its sync child: the worker group is gone, the record says why', async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: SUB, delay_ms: 60_000, content: 'never' }] };
    const rig = await startRig(playbook, {}, { yaml: workflow('instruction: "take forever"') });
    try {
      await waitUntil(() => rig.named('subagent.spawn').length === 1, 20_000, 'the child spawned');
      const pid = Number(rig.named('subagent.spawn')[0]?.['pid']);
      assert.equal(processGone(pid), false, 'premise: the child runs');
      const desk = rig.ports.port('workflows')?.();
      const runId = String(rig.named('run.start')[0]?.['run']);
      assert.equal(await desk?.engine.cancel(runId, 'stop it'), true);
      await waitUntil(() => groupGone(pid), 10_000, "the child's process group is gone");
      await waitUntil(() => rig.named('subagent.result').length === 1, 10_000, 'the child ended');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, 'its workflow step ended: stop it');
      assert.equal((await rig.store.workflows.getRun(runId))?.status, 'cancelled');
    } finally {
      await rig.close();
    }
  });

  it("a child past the run's limits.tokens fails the run with the reason and is stopped", async () => {
    // Each model call spends well over 5 tokens: the child's first usage frame exhausts the run.
    const playbook: Playbook = {
      turns: [],
      match: [
        {
          when_contains: SUB,
          usage: { prompt_tokens: 100, completion_tokens: 5 },
          tool_calls: [{ name: 'memory.list', arguments: {} }],
          delay_ms: 200,
        },
      ],
    };
    const limits = '    limits: {tokens: 5}\n';
    const rig = await startRig(playbook, {}, { yaml: workflow('instruction: "loop forever"', limits) });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'failed');
      assert.equal(end['err'], 'exhausted tokens: limits.tokens = 5');
      await waitUntil(() => rig.named('subagent.result').length === 1, 15_000, 'the child was stopped');
      const [record] = await rig.store.subagents.list();
      assert.ok(['cancelled', 'exhausted_tokens'].includes(String(record?.status)), String(record?.status));
      assert.equal(record?.spec.limits.max_tokens, 5, "the child's own token limit is what the run had left");
    } finally {
      await rig.close();
    }
  });

  it("the step's timeout bounds the child's deadline and cancels it when it passes", async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: SUB, delay_ms: 60_000, content: 'never' }] };
    const rig = await startRig(playbook, {}, { yaml: workflow('instruction: "take forever", timeout: 1s') });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'failed');
      assert.equal(end['err'], 'step "sub" failed: step timed out after 1000 ms');
      await waitUntil(() => rig.named('subagent.result').length === 1, 10_000, 'the child ended');
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, 'its workflow step timed out');
      assert.equal(record?.spec.limits.deadline_ms, 1_000, "the child's deadline is the step's timeout");
    } finally {
      await rig.close();
    }
  });

  it("a gate's refusal fails the step with subagent.run's text, and nothing spawns", async () => {
    const yaml = `limits:\n  subagents: {depth: 0}\n${workflow('instruction: "x"')}`;
    const rig = await startRig({ turns: [] }, {}, { yaml });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'failed');
      assert.equal(
        end['err'],
        'step "sub" failed: subagent.run refused: delegation depth 0 reaches limits.subagents.depth = 0',
      );
      assert.equal(rig.named('subagent.spawn').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('a child that does not complete fails the step with its status (agentd: done)', async () => {
    const playbook: Playbook = {
      turns: [],
      match: [{ when_contains: SUB, tool_calls: [{ name: 'memory.list', arguments: {} }] }],
    };
    const rig = await startRig(playbook, {}, { yaml: workflow('instruction: "spin", limits: {steps: 1}') });
    try {
      const end = await runEnd(rig);
      assert.equal(end['status'], 'failed');
      assert.match(String(end['err']), /^step "sub" failed: subagent sub-1 exhausted_steps/);
    } finally {
      await rig.close();
    }
  });
});
