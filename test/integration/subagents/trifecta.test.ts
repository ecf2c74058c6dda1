// Gate 8 over real MCP servers carrying `tags:` (reference §1.4): a grant whose servers together hold private
// data, untrusted content and an outbound channel is refused with agentd's text; one without all three passes,
// and security.allow_trifecta lets the full grant through to a child that reaches both servers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults, twoMcpServers } from './subagentParts.js';

const TRIFECTA =
  'subagent.run refused: the requested MCP servers form a lethal trifecta (untrusted input + sensitive + egress); ' +
  'set security.allow_trifecta to override';

const run = (args: Record<string, unknown>) => ({ tool_calls: [{ name: 'subagent.run', arguments: args }] });

describe('gate 8 over tagged MCP servers', () => {
  const mcp = twoMcpServers();

  const servers = () =>
    `mcp:\n  servers:\n    a:\n      url: ${mcp.a.url}\n      tags: [private_data, untrusted_content]\n` +
    `    b:\n      url: ${mcp.b.url}\n      tags: [external_comms]\n`;

  it('refuses a grant that completes the trifecta (listed, or every server by default) and passes one that does not', async () => {
    const playbook: Playbook = {
      turns: [
        run({ instruction: 'read only', servers: ['a'] }),
        run({ instruction: 'read and send', servers: ['a', 'b'] }),
        run({ instruction: 'everything' }),
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'done' }],
    };
    const rig = await startRig(playbook, {}, { yaml: servers() });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [one, both, all] = toolResults(rig, 'root');
      assert.deepEqual(one?.content, { handle: 'sub-1', status: 'completed', result: 'done', error: null });
      assert.equal(both?.content, TRIFECTA);
      assert.equal(all?.content, TRIFECTA, 'servers omitted means every configured server');
      assert.deepEqual(
        rig.named('subagent.refused').map((e) => e.gate),
        ['trifecta', 'trifecta'],
      );
      assert.deepEqual(
        (await rig.store.subagents.list()).map((r) => r.handle),
        ['sub-1'],
      );
    } finally {
      await rig.close();
    }
  });

  it('with security.allow_trifecta the same grant runs, and the child reaches both servers', async () => {
    const playbook: Playbook = {
      turns: [run({ instruction: 'read and send', servers: ['a', 'b'] }), { content: 'ok' }],
      match: [
        { when_contains: SUB, times: 1, tool_calls: [{ name: 'b.echo', arguments: { text: 'sent' } }] },
        { when_contains: SUB, content: 'sent it' },
      ],
    };
    const yaml = `${servers()}security:\n  allow_trifecta: true\n`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      assert.deepEqual(ran?.content, { handle: 'sub-1', status: 'completed', result: 'sent it', error: null });
      assert.equal(rig.named('subagent.refused').length, 0);
      const child = rig.model.requests.find((r) => JSON.stringify(r.body).includes(SUB))?.body as {
        tools?: Array<{ function?: { name?: string } }>;
      };
      const names = (child.tools ?? []).map((t) => t.function?.name ?? '');
      assert.ok(names.includes('a_echo') && names.includes('b_echo'), names.join(','));
      assert.ok(
        mcp.b.calls.some((c) => c.name === 'echo' && (c.args as { text?: string }).text === 'sent'),
        'the child sent through b',
      );
    } finally {
      await rig.close();
    }
  });
});
