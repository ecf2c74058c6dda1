// A respawned subagent replays its run under the same call keys (reference §1.12, §5 item 2): SIGKILL the binary
// while an async subagent is inside a tool round (a nested subagent.run and an MCP call in one response), restart,
// and the replay finds the nested child it started (no second spawn) and sends the MCP call with the idempotency
// key of the first, so a server keeping a journal of keys runs it once. subagent.list shows each handle once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type McpTestServer, startMcpTestServer } from '../doubles/mcpTestServer.js';
import { type Playbook, type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const SUB = 'You are a subagent of';
const KEY = 'agent/idempotency_key';

const playbook: Playbook = {
  turns: [
    { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'outer', mode: 'async' } }] },
    { tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1' } }] },
    { tool_calls: [{ name: 'subagent.list', arguments: {} }] },
    { content: 'done' },
  ],
  match: [
    { when_contains: '"content":"inner"', content: 'inner done' },
    // sub-1's tool round: a nested async subagent and a slow MCP call, in one response.
    {
      when_contains: '"content":"outer"',
      times: 1,
      tool_calls: [
        { name: 'subagent.run', arguments: { instruction: 'inner', mode: 'async' } },
        // Long enough that a loaded machine still kills the first life inside it.
        { name: 'slow', arguments: { ms: 8000 } },
      ],
    },
    { when_contains: SUB, content: 'outer done' },
  ],
};

describe('a respawned subagent keeps its call keys', () => {
  let server: McpTestServer;
  const models: ScriptedModel[] = [];
  before(async () => {
    server = await startMcpTestServer();
  });
  after(async () => {
    for (const m of models) await m.close();
    await server.close();
  });

  it('finds its nested child and repeats its MCP call under the same idempotency key after a SIGKILL', async () => {
    const env = { AGENTD_STATE_DIR: tempStateDir() };
    const slowCalls = () => server.calls.filter((c) => c.name === 'slow');
    const first = await startScriptedModel(playbook);
    models.push(first);
    let nestedSpawned = false;
    let poll: NodeJS.Timeout | undefined;
    const args = ['--mcp', `test=${server.url}`, '--intelligence', first.url, '--prompt', 'delegate'];
    const life1 = await runAgentd(args, {
      env,
      onEvent: (ev, child) => {
        if (ev.event === 'subagent.spawn' && ev.handle === 'sub-2') nestedSpawned = true;
        // Killed once the MCP server holds sub-1's slow call and the nested child was spawned: mid tool round.
        poll ??= setInterval(() => {
          if (nestedSpawned && slowCalls().length > 0) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 20);
      },
    });
    clearInterval(poll);
    assert.equal(life1.signal, 'SIGKILL', life1.stderr.slice(-2000));
    assert.equal(slowCalls().length, 1, 'premise: the call reached the server before the crash');

    const second = await startScriptedModel(playbook);
    models.push(second);
    const life2 = await runAgentd(['--mcp', `test=${server.url}`, '--intelligence', second.url, '--prompt', 'x'], {
      env,
      timeoutMs: 60_000,
    });
    assert.equal(life2.code, 0, life2.stderr.slice(-3000));
    assert.equal(life2.stdout, 'done\n');
    assert.deepEqual(
      eventsNamed(life2, 'subagent.respawn').find((e) => e.handle === 'sub-1')?.attempt,
      2,
      'sub-1 was respawned and replayed its run',
    );
    assert.deepEqual(eventsNamed(life2, 'subagent.spawn'), [], 'the replayed nested call found sub-2');
    const [before, replayed] = slowCalls();
    assert.ok(replayed, 'the respawned run made its MCP call again');
    // Premise: keyed by the attempt (`sub-1.1` then `sub-1.2`), the replay carried a new key and ran twice.
    assert.equal(before?.meta?.[KEY], 'agentd/sub/sub-1#sub-1.run1.1');
    assert.equal(replayed.meta?.[KEY], before?.meta?.[KEY]);
    const results = eventsNamed(life2, 'subagent.result').filter((e) => e.handle === 'sub-1');
    assert.deepEqual(
      results.map((e) => e.status),
      ['completed'],
    );
    const store = new SqliteStore(env.AGENTD_STATE_DIR);
    try {
      const root = await store.conversations.get('root');
      const tools = root?.conversation.messages.flatMap((m) => (m.role === 'tool' ? [m] : [])) ?? [];
      const list = tools.find((m) => m.name === 'subagent.list');
      const content = list?.content as { subagents?: Array<{ handle: string }> } | undefined;
      const listed = content?.subagents?.map((s) => s.handle);
      assert.deepEqual(listed, ['sub-1', 'sub-2'], 'each handle once: no second nested child');
    } finally {
      await store.close();
    }
  });
});
