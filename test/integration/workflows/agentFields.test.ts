// An agent step's own turn settings in real runs (producers reference §2.8): `system` replaces the prompt, `tools`
// and `servers` narrow what the turn is offered (and which MCP servers it dials), `context` seeds come first,
// `limits` caps its rounds.
// Two real MCP servers, `a` and `b`, with the same tools (registered as `a.echo`, `b.echo`, …).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { offeredTools } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { twoMcpServers } from '../subagents/subagentParts.js';
import { waitUntil } from '../wait.js';

const systemOf = (body: unknown): string => {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  return String(messages.find((m) => m.role === 'system')?.content ?? '');
};

describe('agent step system, tools, servers and limits', () => {
  const servers = twoMcpServers();

  it('runs each setting in a real turn: the prompt, the narrowed tools, the capped rounds', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'unscripted' }],
      match: [
        { when_contains: 'Narrow me', content: 'narrowed' },
        { when_contains: 'Open me', content: 'open' },
        { when_contains: 'Loop me', tool_calls: [{ name: 'memory.list', arguments: {} }] },
      ],
    };
    const yaml = `mcp:
  servers:
    a: {url: ${servers.a.url}}
    b: {url: ${servers.b.url}}
workflows:
  - name: narrow
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: "Narrow me", system: "You are terse, {{run.workflow}}.",
          tools: [a.echo, b.echo, memory.get], servers: [a],
          context: [{role: system, content: "Seed fact 17"}, {role: assistant, content: "Seed reply 18"}]}
      f: {kind: finish, depends_on: a, output: "{{steps.a.output}}"}
  - name: open
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: "Open me"}
      f: {kind: finish, depends_on: a, output: "{{steps.a.output}}"}
  - name: capped
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: "Loop me", limits: {steps: 1}}
      f: {kind: finish, depends_on: a}
`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      await waitUntil(() => rig.named('run.done').length === 3, 40_000, 'every run ended');
      const runs = await rig.store.workflows.listRuns({});
      const run = (name: string) => runs.find((r) => r.workflow === name);
      assert.equal(run('narrow')?.output, 'narrowed', String(run('narrow')?.error));
      assert.equal(run('open')?.output, 'open', String(run('open')?.error));
      assert.equal(run('capped')?.status, 'failed');
      assert.match(String(run('capped')?.error), /turn exhausted_steps/);

      const request = (text: string) => rig.model.requests.find((r) => JSON.stringify(r.body).includes(text));
      const narrow = request('Narrow me');
      assert.equal(systemOf(narrow?.body), 'You are terse, narrow.');
      assert.deepEqual(offeredTools(narrow).sort(), ['a_echo', 'memory_get']);
      // The seeds come before the instruction, with their roles.
      const sent = ((narrow?.body ?? {}) as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
      const at = (text: string) => sent.findIndex((m) => JSON.stringify(m.content).includes(text));
      assert.equal(sent[at('Seed fact 17')]?.role, 'system');
      assert.equal(sent[at('Seed reply 18')]?.role, 'assistant');
      assert.ok(at('Seed fact 17') < at('Seed reply 18') && at('Seed reply 18') < at('Narrow me'));
      // Premise: the same turn without the settings gets the root prompt and every tool of both servers.
      const open = request('Open me');
      assert.notEqual(systemOf(open?.body), 'You are terse, open.');
      const all = offeredTools(open);
      assert.ok(all.includes('a_echo') && all.includes('b_echo'), all.join(','));
      // `limits.steps: 1`: one model call, then the turn ends exhausted.
      assert.equal(rig.model.requests.filter((r) => JSON.stringify(r.body).includes('Loop me')).length, 1);
    } finally {
      await rig.close();
    }
  });
});
