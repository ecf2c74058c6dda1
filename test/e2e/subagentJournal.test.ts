// A subagent's tool journal and its spend across a SIGKILL of the binary (reference §1.12, §5 items 2 and 24):
// an MCP call a subagent completed before the crash is answered from the journal when its respawned run replays
// it (the server counts one call), the subtree spend charged before the crash is in the store, and a warm session
// respawned after a crash goes on numbering its runs, so no completed run's keys answer another run's calls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type McpTestServer, startMcpTestServer } from '../doubles/mcpTestServer.js';
import { type Playbook, type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const KEY = 'agent/idempotency_key';
const USAGE = { prompt_tokens: 300, completion_tokens: 20 };

/** sub-1 (async): an echo that completes, then a slow call the first life dies in, then its answer. */
const oneShot: Playbook = {
  turns: [
    { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'outer', mode: 'async' } }] },
    { tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1' } }] },
    { content: 'done' },
  ],
  match: [
    { when_contains: 'slept', content: 'outer done' },
    { when_contains: 'journaled-once', tool_calls: [{ name: 'slow', arguments: { ms: 8000 } }] },
    {
      when_contains: '"content":"outer"',
      usage: USAGE,
      tool_calls: [{ name: 'echo', arguments: { text: 'journaled-once' } }],
    },
  ],
};

/** sub-1 (warm): run 1 echoes and answers; run 2 (the sent message) echoes, then dies in a slow call. */
const warm: Playbook = {
  turns: [
    { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'wander', mode: 'warm' } }] },
    { tool_calls: [{ name: 'subagent.send', arguments: { handle: 'sub-1', message: 'second' } }] },
    { tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1' } }] },
    { content: 'done' },
  ],
  match: [
    { when_contains: 'slept', content: 'second done' },
    { when_contains: 'second-echo', tool_calls: [{ name: 'slow', arguments: { ms: 8000 } }] },
    { when_contains: '"content":"second"', tool_calls: [{ name: 'echo', arguments: { text: 'second-echo' } }] },
    { when_contains: 'first-echo', content: 'wandered' },
    { when_contains: '"content":"wander"', tool_calls: [{ name: 'echo', arguments: { text: 'first-echo' } }] },
  ],
};

describe('a subagent across a crash: its tool journal and its spend', () => {
  let server: McpTestServer;
  const models: ScriptedModel[] = [];
  before(async () => {
    server = await startMcpTestServer();
  });
  after(async () => {
    for (const m of models) await m.close();
    await server.close();
  });

  /** Runs the binary until `until` holds (checked on each event and every 20 ms), then SIGKILLs it. */
  async function lifeUntil(playbook: Playbook, dir: string, until: () => boolean) {
    const model = await startScriptedModel(playbook);
    models.push(model);
    let poll: NodeJS.Timeout | undefined;
    const args = ['--mcp', `test=${server.url}`, '--intelligence', model.url, '--prompt', 'delegate'];
    const life = await runAgentd(args, {
      env: { AGENTD_STATE_DIR: dir },
      timeoutMs: 60_000,
      onEvent: (_ev, child) => {
        poll ??= setInterval(() => {
          if (!until()) return;
          clearInterval(poll);
          child.kill('SIGKILL');
        }, 20);
      },
    });
    clearInterval(poll);
    assert.equal(life.signal, 'SIGKILL', life.stderr.slice(-2000));
    return life;
  }

  it('answers a completed MCP call from the journal after a SIGKILL, and kept the charged subtree spend', async () => {
    server.calls.length = 0;
    const dir = tempStateDir();
    const named = (name: string) => server.calls.filter((c) => c.name === name);
    await lifeUntil(oneShot, dir, () => named('slow').length > 0);
    assert.equal(named('echo').length, 1, 'premise: the echo completed before the crash');
    const store = new SqliteStore(dir);
    try {
      const [sub1] = await store.subagents.list();
      // Saved with its charge: before, the record was written at spawn and at its end, so a crash lost the spend.
      assert.equal(sub1?.status, 'running');
      // Every call charged so far: the echo round's, and the slow round's when it was charged before the kill.
      const spent = (sub1?.tokens.input_tokens ?? 0) + (sub1?.tokens.output_tokens ?? 0);
      assert.ok(spent >= USAGE.prompt_tokens + USAGE.completion_tokens, `spent ${spent}`);
      assert.equal(sub1?.tree_tokens, spent);
    } finally {
      await store.close();
    }

    const model = await startScriptedModel(oneShot);
    models.push(model);
    const args = ['--mcp', `test=${server.url}`, '--intelligence', model.url, '--prompt', 'x'];
    const life2 = await runAgentd(args, { env: { AGENTD_STATE_DIR: dir }, timeoutMs: 60_000 });
    assert.equal(life2.code, 0, life2.stderr.slice(-3000));
    assert.equal(eventsNamed(life2, 'subagent.respawn')[0]?.attempt, 2, 'sub-1 replayed its run');
    // Premise: without a journal the replay sent the echo again (a server ignoring the key ran it twice).
    assert.equal(named('echo').length, 1, 'the completed echo was answered from the journal');
    assert.deepEqual(
      eventsNamed(life2, 'tool.journal_hit').map((e) => e.key),
      ['agentd/sub/sub-1#sub-1.run1.0'],
    );
    assert.equal(named('slow').length, 2, 'the call cut by the crash was sent again');
    const results = eventsNamed(life2, 'subagent.result').filter((e) => e.handle === 'sub-1');
    assert.deepEqual(
      results.map((e) => e.status),
      ['completed'],
    );
    // The spend of both lives: the first life's charge was not lost, the replayed call is charged again.
    assert.ok(Number(results[0]?.tokens) >= 2 * (USAGE.prompt_tokens + USAGE.completion_tokens));
  });

  it('numbers a respawned warm session past its completed runs: no run answers from another run’s keys', async () => {
    server.calls.length = 0;
    const dir = tempStateDir();
    const echoKeys = () => server.calls.filter((c) => c.name === 'echo').map((c) => c.meta?.[KEY]);
    await lifeUntil(warm, dir, () => server.calls.some((c) => c.name === 'slow'));
    assert.deepEqual(echoKeys(), ['agentd/sub/sub-1#sub-1.run1.0', 'agentd/sub/sub-1#sub-1.run2.0']);
    const store = new SqliteStore(dir);
    try {
      const [sub1] = await store.subagents.list();
      assert.deepEqual([sub1?.runs, sub1?.keyed_runs], [1, 2], 'premise: run 2 started (keyed) and did not finish');
    } finally {
      await store.close();
    }
    // The respawn restarts from the instruction as run 3. Premise: numbered from the finished runs alone it was
    // run 2 again, its echo sent under run 2's key — a key the journal holds for a completed call.
    const life2 = await lifeUntil(warm, dir, () => echoKeys().length >= 3);
    assert.equal(eventsNamed(life2, 'subagent.respawn')[0]?.handle, 'sub-1');
    assert.equal(echoKeys()[2], 'agentd/sub/sub-1#sub-1.run3.0');
  });
});
