// A subagent's tool grant over a real MCP server (P-4), and its kernel caps (P-3 as far as Node applies them:
// RLIMIT_CPU through prlimit, the niceness of priority low; the memory cap is reported, not applied).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB, toolResults } from './subagentParts.js';

describe('subagent grants (P-4)', () => {
  let server: McpTestServer;
  before(async () => {
    server = await startMcpTestServer();
  });
  after(async () => server.close());

  it('sees only the granted tools; a narrowed-away call is refused as not allowed', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'use tools', tools: ['echo'] } }] },
        { content: 'ok' },
      ],
      match: [
        {
          when_contains: SUB,
          times: 1,
          tool_calls: [
            { name: 'failing', arguments: {} },
            { name: 'echo', arguments: { text: 'granted' } },
          ],
        },
        { when_contains: SUB, content: 'used' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: `mcp:\n  servers:\n    t:\n      url: ${server.url}\n` });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      assert.equal((ran?.content as { result?: unknown } | undefined)?.result, 'used');
      const subRequests = rig.model.requests.filter((r) => JSON.stringify(r.body).includes(SUB));
      const first = subRequests[0]?.body as { tools?: Array<{ function?: { name?: string } }> };
      assert.deepEqual(
        first.tools?.map((t) => t.function?.name),
        ['echo'],
        'the child sees one tool',
      );
      const second = JSON.stringify(subRequests[1]?.body);
      assert.ok(second.includes("error: tool 'failing' is not in this subagent's allowed tools"));
      assert.ok(
        server.calls.some((c) => c.name === 'echo'),
        'the granted tool ran on the server',
      );
      assert.ok(!server.calls.some((c) => c.name === 'failing'), 'the other never reached it');
      const [record] = await rig.store.subagents.list();
      assert.deepEqual(record?.spec.allowed_tools, ['echo']);
    } finally {
      await rig.close();
    }
  });
});

describe('subagent caps (P-3)', () => {
  it('reports memory_bytes and cpu_seconds; applies RLIMIT_CPU 300/305, RLIMIT_AS and nice 10 to the worker', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            {
              name: 'subagent.run',
              arguments: {
                instruction: 'stay warm',
                mode: 'warm',
                priority: 'low',
                limits: { memory: '512MB', cpu: '5m' },
              },
            },
          ],
        },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'warm and ready' }],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [spawn] = rig.named('subagent.spawn');
      assert.equal(spawn?.memory_bytes, 536_870_912);
      assert.equal(spawn?.cpu_seconds, 300);
      const pid = spawn?.pid as number;
      await waitUntil(() => rig.named('subagent.caps').length === 1, 5_000, 'the caps applied');
      const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
      assert.match(limits, /Max cpu time\s+300\s+305\s+seconds/);
      // RLIMIT_AS: what the running worker had mapped plus 512 MB (a node started under 512 MB would not start);
      // unlimited when the memory cap is not applied.
      const as = /Max address space\s+(\d+)\s+(\d+)\s+bytes/.exec(limits);
      assert.ok(as, `an address-space limit is set: ${limits}`);
      const mapped = Number(/VmSize:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
      assert.ok(Number(as[1]) > 536_870_912 && Number(as[1]) <= mapped + 536_870_912, `${as[1]} vs ${mapped}`);
      assert.equal(rig.named('subagent.caps')[0]?.memory, 'applied');
      // /proc/<pid>/stat: field 19 is the niceness (fields after the parenthesised name).
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      assert.equal(fields[16], '10');
    } finally {
      await rig.close();
    }
  });
});
