// The `subagent` step's `skills` over real workers, a real MCP server listing skills and the scripted model: the
// child's first request carries each skill's body (as a turn's prompt would), ahead of the step's own context;
// a name no skills source lists fails the step before anything spawns. `workflow` stays refused at load.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

const yaml = (url: string, skills: string) => `mcp: {servers: {kb: {url: "${url}"}}}
skills: {sources: [kb]}
workflows:
  - name: w
    steps:
      s: {kind: once}
      sub: {kind: subagent, depends_on: s, instruction: "Ship the release", skills: ${skills}, context: [{role: user, content: "It is Friday."}]}
      f: {kind: finish, depends_on: sub, output: "{{steps.sub.output.result}}"}
`;

describe('subagent step skills', () => {
  let kb: McpTestServer;
  before(async () => {
    kb = await startMcpTestServer();
  });
  after(async () => {
    await kb.close();
  });

  it("gives the child the skills' bodies ahead of its context", async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: 'Ship the release', content: 'shipped' }] };
    const rig = await startRig(playbook, {}, { yaml: yaml(kb.url, '[deploy, review]') });
    try {
      await waitUntil(() => rig.named('run.done').length === 1, 30_000, 'the run ended');
      const [run] = await rig.store.workflows.listRuns({});
      assert.equal(run?.status, 'completed', String(run?.error));
      assert.equal(run?.output, 'shipped');
      const request = rig.model.requests.find((r) => JSON.stringify(r.body).includes('Ship the release'));
      const body = JSON.stringify(request?.body ?? null);
      const deploy = body.indexOf('### Skill: deploy\\nDEPLOY-SKILL-BODY');
      const review = body.indexOf('### Skill: review\\nREVIEW-SKILL-BODY');
      assert.ok(deploy > 0 && review > deploy, body.slice(0, 800));
      assert.ok(review < body.indexOf('It is Friday.'), 'the skills come before the context');
    } finally {
      await rig.close();
    }
  });

  it('fails the step on a skill no source lists, and nothing spawns; workflow is refused at load', async () => {
    const rig = await startRig({ turns: [] }, {}, { yaml: yaml(kb.url, '[deploy, nope]') });
    try {
      await waitUntil(() => rig.named('run.done').length === 1, 30_000, 'the run ended');
      const [run] = await rig.store.workflows.listRuns({});
      assert.equal(run?.error, 'step "sub" failed: subagent: skill "nope" is not in the skill catalogue');
      assert.equal(rig.named('subagent.spawn').length, 0);
    } finally {
      await rig.close();
    }
    const loaded = loadWorkflow({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        x: { kind: 'subagent', depends_on: 's', instruction: 'i', workflow: 'w', skills: [] },
      },
    });
    assert.deepEqual(loaded.ok ? [] : loaded.errors, [
      'workflow "w" step "x": subagent.workflow is not built in this version; remove it',
      'workflow "w" step "x": subagent.skills must be a non-empty list of skill names',
    ]);
  });
});
