// The intelligence kinds (producers reference §2.8 `think`, presets) in real runs: each step's turn goes through the
// inbox to a real worker and the scripted model; its JSON answer is the output, a bad one is re-asked, then fails.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { MatchRule, Playbook } from '../../doubles/scriptedModel.js';
import { offeredTools } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

interface Case {
  name: string;
  /** The steps between `s: {kind: once}` and the finish, which outputs `steps.<out>.output`. */
  steps: string;
  out: string;
  rules: MatchRule[];
  status: 'completed' | 'failed';
  /** The run's output (completed) or a piece of its error (failed). */
  want: unknown;
}

const CASES: Case[] = [
  {
    name: 'think',
    steps: `      t:
        kind: think
        depends_on: s
        prompt: "Pick a number for {{run.workflow}}"
        reads: [run.workflow]
        output_schema: {type: object, required: [n], properties: {n: {type: integer}}}
        check: "output.n > 3"`,
    out: 't',
    // The first answer matches the schema but fails the check: a second turn says why and gets 5.
    rules: [
      { when_contains: 'check failed: output.n > 3', content: '{"n": 5}' },
      { when_contains: 'Pick a number for think', content: '{"n": 1}' },
    ],
    status: 'completed',
    want: { n: 5 },
  },
  {
    name: 'think_bad',
    steps: `      t: {kind: think, depends_on: s, prompt: "Say a colour", retries: 0, output_schema: {type: object, required: [colour]}}`,
    out: 't',
    rules: [{ when_contains: 'Say a colour', content: '{"hue": "red"}' }],
    status: 'failed',
    want: 'think: no acceptable answer after 1 turn: answer does not match the output schema',
  },
  {
    name: 'classify',
    steps: `      c: {kind: classify, depends_on: s, input: "the app crashes on start", classes: [bug, feature], prompt: "crashes are bugs"}`,
    out: 'c',
    rules: [{ when_contains: 'Additional guidance: crashes are bugs', content: '{"class": "bug", "confidence": 0.9}' }],
    status: 'completed',
    want: { class: 'bug', confidence: 0.9 },
  },
  {
    name: 'extract',
    steps: `      e: {kind: extract, depends_on: s, input: "Ada, 36", output_schema: {type: object, required: [name], properties: {name: {type: string}}}}`,
    out: 'e',
    rules: [{ when_contains: 'Ada, 36', content: '{"name": "Ada"}' }],
    status: 'completed',
    want: { name: 'Ada' },
  },
  {
    name: 'summarize',
    steps: `      m: {kind: summarize, depends_on: s, input: {text: "a long story"}, length: "five words"}`,
    out: 'm',
    rules: [{ when_contains: 'Summarize the input in five words', content: '{"summary": "a story, briefly told"}' }],
    status: 'completed',
    want: { summary: 'a story, briefly told' },
  },
  {
    name: 'judge',
    steps: `      j: {kind: judge, depends_on: s, input: "2 + 2 = 4", rubric: "arithmetic is right"}`,
    out: 'j',
    rules: [{ when_contains: 'arithmetic is right', content: '{"verdict": "pass", "score": 1, "reasons": ["ok"]}' }],
    status: 'completed',
    want: { verdict: 'pass', score: 1, reasons: ['ok'] },
  },
  {
    name: 'route',
    steps: `      r: {kind: route, depends_on: s, input: "refund my order", choices: {billing: "money matters", tech: "bugs"}}
      sw: {kind: switch, depends_on: r, on: "CEL: steps.r.output.choice", cases: {billing: b, tech: t}}
      b: {kind: assign, depends_on: sw, value: "went billing"}
      t: {kind: assign, depends_on: sw, value: "went tech"}
      j: {kind: noop, depends_on: [b, t]}`,
    out: 'b',
    rules: [{ when_contains: 'billing: money matters', content: '{"choice": "billing", "reason": "money"}' }],
    status: 'completed',
    want: 'went billing',
  },
];

function yamlOf(cases: readonly Case[]): string {
  const docs = cases.map(
    (c) => `  - name: ${c.name}
    steps:
      s: {kind: once}
${c.steps}
      f: {kind: finish, depends_on: ${c.name === 'route' ? 'j' : c.out}, output: "{{steps.${c.out}.output}}"}
`,
  );
  return `workflows:\n${docs.join('')}`;
}

describe('think and its presets in real runs', () => {
  it('each kind runs as a tool-less structured turn; its answer is the output; a bad answer is re-asked or fails', async () => {
    const playbook: Playbook = { turns: [{ content: 'unscripted' }], match: CASES.flatMap((c) => c.rules) };
    const rig = await startRig(playbook, {}, { yaml: yamlOf(CASES) });
    try {
      await waitUntil(() => rig.named('run.done').length === CASES.length, 60_000, 'every run ended');
      const runs = await rig.store.workflows.listRuns({});
      for (const c of CASES) {
        const run = runs.find((r) => r.workflow === c.name);
        assert.equal(run?.status, c.status, `${c.name}: ${JSON.stringify(run?.error)}`);
        if (c.status === 'completed') assert.deepEqual(run?.output, c.want, c.name);
        else assert.ok(String(run?.error).includes(String(c.want)), `${c.name}: ${run?.error}`);
      }
      const bodies = rig.model.requests.map((r) => ({ raw: JSON.stringify(r.body), tools: offeredTools(r) }));
      const thinks = bodies.filter((b) => b.raw.includes('You are the reasoning module of'));
      assert.ok(thinks.length >= CASES.length, 'every step turn had the reasoning-module prompt');
      assert.ok(
        thinks.every((b) => b.tools.length === 0),
        'no step turn was offered a tool',
      );
      const first = bodies.find((b) => b.raw.includes('Pick a number for think'));
      assert.ok(first?.raw.includes('run.workflow = \\"think\\"'), 'reads became a system line');
      assert.equal(rig.named('preflight.start').length, 0, 'no preflight for a think turn');
      // think_bad: the worker re-asked twice within its one turn, then the step failed.
      assert.equal(bodies.filter((b) => b.raw.includes('Say a colour')).length, 3);
    } finally {
      await rig.close();
    }
  });

  describe('skills', () => {
    let kb: McpTestServer;
    before(async () => {
      kb = await startMcpTestServer();
    });
    after(async () => {
      await kb.close();
    });

    it("loads a step's skills on its conversation: think and agent prompts carry their bodies; an unknown one is noted", async () => {
      const yaml = `mcp: {servers: {kb: {url: "${kb.url}"}}}
skills: {sources: [kb]}
workflows:
  - name: sk
    steps:
      s: {kind: once}
      t: {kind: think, depends_on: s, prompt: "Ponder the release", skills: [deploy]}
      a: {kind: agent, depends_on: t, instruction: "Say hi to the team", skills: [review, nope]}
      f: {kind: finish, depends_on: a, output: "{{steps.t.output}}"}
`;
      const playbook: Playbook = {
        turns: [{ content: 'unscripted' }],
        match: [
          { when_contains: 'Ponder the release', content: '{"ok": true}' },
          { when_contains: 'Say hi to the team', content: 'hi' },
        ],
      };
      const rig = await startRig(playbook, {}, { yaml });
      try {
        await waitUntil(() => rig.named('run.done').length === 1, 30_000, 'the run ended');
        const [run] = await rig.store.workflows.listRuns({});
        assert.equal(run?.status, 'completed', String(run?.error));
        assert.deepEqual(run?.output, { ok: true });
        const body = (text: string) =>
          JSON.stringify(rig.model.requests.find((r) => JSON.stringify(r.body).includes(text))?.body ?? null);
        const think = body('Ponder the release');
        assert.ok(think.includes('You are the reasoning module of'), 'the think prompt stays');
        assert.ok(think.includes('### Skill: deploy\\nDEPLOY-SKILL-BODY'), think.slice(0, 600));
        assert.ok(!think.includes('Available skills'), 'a think turn gets bodies, not the catalogue');
        const agent = body('Say hi to the team');
        assert.ok(agent.includes('### Skill: review\\nREVIEW-SKILL-BODY'), 'the root prompt carries the body');
        assert.ok(
          agent.includes('skill.unknown: \\"nope\\" is not in the skill catalogue'),
          'the unknown one is noted',
        );
        assert.deepEqual(
          rig.named('skill.loaded').map((e) => e['skill']),
          ['deploy', 'review'],
        );
      } finally {
        await rig.close();
      }
    });
  });
});
