// A nested subagent stays within its calling subagent's grants (reference §1.4 "Payload", §1.10): with `servers`
// and `tools` omitted it gets the parent's servers and tools, not every configured one, and gate 8 judges that
// narrowed set. Two real MCP servers, `a` and `b`, with the same tool names (registered as `a.echo`, `b.echo`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults, twoMcpServers } from './subagentParts.js';

const toolNames = (body: unknown): string[] =>
  ((body as { tools?: Array<{ function?: { name?: string } }> }).tools ?? []).map((t) => t.function?.name ?? '');

describe('nested subagent grants', () => {
  const servers = twoMcpServers();

  it("gets only its parent's servers and tools, and gate 8 judges that set", async () => {
    const nested = { name: 'subagent.run', arguments: { instruction: 'nested work', output_contract: 'n' } };
    const parentArgs = { instruction: 'parent work', servers: ['a'], tools: ['a.echo', 'subagent.run'] };
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: parentArgs }] }, { content: 'ok' }],
      match: [
        { when_contains: 'Output contract:', content: 'nested done' },
        { when_contains: SUB, times: 1, tool_calls: [nested] },
        { when_contains: SUB, content: 'parent done' },
      ],
    };
    // `a` and `b` together form the lethal trifecta; `a` alone does not.
    const yaml =
      `mcp:\n  servers:\n    a:\n      url: ${servers.a.url}\n      tags: [private_data, untrusted_content]\n` +
      `    b:\n      url: ${servers.b.url}\n      tags: [external_comms]\n`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      assert.equal((ran?.content as { result?: unknown } | undefined)?.result, 'parent done');
      // Premise: before the fix gate 8 judged every configured server for the nested call (a + b: the trifecta)
      // and refused it; with `allow_trifecta` off that refusal would show here instead of `nested done`.
      assert.equal(rig.named('subagent.refused').length, 0, JSON.stringify(rig.named('subagent.refused')));
      const records = await rig.store.subagents.list();
      const child = records.find((r) => r.requested_by.subagent === 'sub-1');
      assert.equal(child?.status, 'completed');
      assert.deepEqual(child?.spec.servers, ['a']);
      assert.deepEqual(child?.spec.inherited_tools, [['a.echo', 'subagent.run']]);
      const childRequest = rig.model.requests.find((r) => JSON.stringify(r.body).includes('Output contract:'));
      const seen = toolNames(childRequest?.body).sort();
      // Premise: without the narrowing the child saw b.echo and every other tool of both servers, memory.* too
      // (wire names: dots become underscores).
      assert.deepEqual(seen, ['a_echo', 'subagent_run']);
    } finally {
      await rig.close();
    }
  });
});
