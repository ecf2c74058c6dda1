// The worker's tool journal seam (issue 19 item 3): a completed call is answered from the journal, a new one is
// called and recorded, a failed one is not recorded, and a turn without a journal scope calls straight through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { argsHash, type JournalChannel, journaledMcp } from '../../../src/worker/toolJournal.js';
import type { McpCall, ToolAnswer } from '../../../src/worker/toolRunner.js';

const call = (args: unknown, key = 'agentd/c#EV.0'): McpCall => ({
  server: 'test',
  tool: 'echo',
  args,
  meta: { 'agent/idempotency_key': key },
  timeoutMs: 1_000,
  signal: new AbortController().signal,
});

function journal(stored: Map<string, { hash: string; answer: ToolAnswer }>) {
  const recorded: string[] = [];
  const channel: JournalChannel = {
    lookup: async (key, hash) => {
      const e = stored.get(key);
      return e && e.hash === hash ? e.answer : null;
    },
    record: (key, hash, answer) => {
      recorded.push(key);
      stored.set(key, { hash, answer });
    },
  };
  return { channel, recorded };
}

describe('journaledMcp', () => {
  it('answers a completed call from the journal and calls a new one once, recording it', async () => {
    const sent: unknown[] = [];
    const server = async (c: McpCall): Promise<ToolAnswer> => {
      sent.push(c.args);
      return { result: { echoed: c.args }, is_error: false };
    };
    const j = journal(new Map());
    const hits: string[] = [];
    const mcp = journaledMcp(server, { journal_scope: 'agentd/c#EV.' }, j.channel, (key) => hits.push(key));
    assert.deepEqual(await mcp(call({ text: 'a' })), { result: { echoed: { text: 'a' } }, is_error: false });
    assert.deepEqual(j.recorded, ['agentd/c#EV.0']);
    // The rerun: same key, same arguments: no second call.
    assert.deepEqual(await mcp(call({ text: 'a' })), { result: { echoed: { text: 'a' } }, is_error: false });
    assert.equal(sent.length, 1);
    assert.deepEqual(hits, ['agentd/c#EV.0']);
    // Same key, other arguments: another call, sent.
    await mcp(call({ text: 'b' }));
    assert.equal(sent.length, 2);
  });

  it('records no failed call, and passes straight through without a scope', async () => {
    let calls = 0;
    const failing = async (): Promise<ToolAnswer> => {
      calls++;
      return { result: 'tool transport error: gone', is_error: true };
    };
    const j = journal(new Map());
    const mcp = journaledMcp(failing, { journal_scope: 'agentd/c#EV.' }, j.channel, () => {});
    await mcp(call({}));
    await mcp(call({}));
    assert.equal(calls, 2, 'a failed call is tried again');
    assert.deepEqual(j.recorded, []);
    assert.equal(
      journaledMcp(failing, {}, j.channel, () => {}),
      failing,
    );
  });

  it('hashes the route and the arguments', () => {
    assert.equal(argsHash(call({ a: 1 })), argsHash(call({ a: 1 }, 'other')));
    assert.notEqual(argsHash(call({ a: 1 })), argsHash(call({ a: 2 })));
    assert.notEqual(argsHash(call({ a: 1 })), argsHash({ ...call({ a: 1 }), tool: 'other' }));
  });
});
