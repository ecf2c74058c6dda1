// A subagent's own turn offers its on-demand families (agent.tools.on_demand) behind tools.more, as a conversation's
// turn does (issue 14): the nested subagent.* family is not in its first request, and the model still reaches
// subagent.run after loading the family. A subagent whose `tools` grant names its tools sees them all at once
// (test/integration/subagents/nestedGrants.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

const toolNames = (body: unknown): string[] =>
  ((body as { tools?: Array<{ function?: { name?: string } }> }).tools ?? []).map((t) => t.function?.name ?? '');

describe('a subagent turn with families on demand', () => {
  it('withholds subagent.* until tools.more, then runs a nested subagent.run', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'alpha job' } }] }, { content: 'ok' }],
      match: [
        // The grandchild's first request is the first to hold "omega job".
        { when_contains: 'omega job', times: 1, content: 'omega done' },
        {
          when_contains: 'now shown:',
          times: 1,
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'omega job' } }],
        },
        {
          when_contains: 'alpha job',
          times: 1,
          tool_calls: [{ name: 'tools.more', arguments: { family: 'subagent' } }],
        },
        { when_contains: 'omega done', times: 1, content: 'alpha done' },
      ],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const bodies = rig.model.requests.map((r) => JSON.stringify(r.body));
      const childFirst = rig.model.requests[bodies.findIndex((b) => b.includes(SUB) && b.includes('alpha job'))];
      const first = toolNames(childFirst?.body);
      assert.ok(first.includes('tools_more'), first.join());
      assert.equal(first.includes('subagent_run'), false, `withheld at first: ${first.join()}`);
      const loaded = rig.model.requests[bodies.findIndex((b) => b.includes('now shown:'))];
      assert.ok(toolNames(loaded?.body).includes('subagent_run'), 'shown once the family is loaded');
      const records = await rig.store.subagents.list();
      const nested = records.find((r) => r.requested_by.subagent === 'sub-1');
      assert.equal(nested?.status, 'completed', 'the nested subagent ran');
      const [ran] = toolResults(rig, 'root');
      assert.equal((ran?.content as { result?: unknown } | undefined)?.result, 'alpha done');
    } finally {
      await rig.close();
    }
  });
});
