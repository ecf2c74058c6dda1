// Per-principal quotas over real A2A HTTP (a running agent, its SQLite store, the scripted model): a message past
// message_bytes, a new conversation past conversations, and a message past stored_bytes are each refused with a
// JSON-RPC error naming the quota, its limit and the principal; nothing of a refused message is stored, and a
// principal without quotas sends the same message fine (the premise: the refusal is the quota's).
//
// Quotas count what is on its way: with the agent paused, accepted messages wait in the queue and none reaches its
// conversation. Before quotas counted accepted-but-unfinished messages, every such send was accepted (the heads
// had not changed): the premise each burst refusal shows. A retry of an accepted message gets its task back even once a quota is full (before, the
// quota refused it), and steering a fresh context counts as a new conversation (before, it was never checked).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RPC_CODES } from '../../../src/a2a/rpcError.js';
import { type Agent, createAgent, runtimeOf } from '../../../src/agent.js';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../wait.js';

const TOKENS = { ALICE_TOKEN: 'alice-token-1234', CAROL_TOKEN: 'carol-token-5678', BOB_TOKEN: 'bob-token-9012ab' };

/** A running agent with `yaml` as its config over a fresh state directory, and its scripted model. */
async function startAgent(yaml: string): Promise<{ agent: Agent; model: ScriptedModel; dir: string }> {
  const model = await startScriptedModel({ turns: [{ content: 'ok' }] });
  const dir = mkdtempSync(join(tmpdir(), 'agentd-quotas-'));
  writeFileSync(join(dir, 'agentd.yaml'), yaml);
  const agent = await createAgent({
    config: {
      files: ['agentd.yaml'],
      env: { AGENTD_STATE_DIR: dir, ...TOKENS },
      flags: { intelligence: model.url, model: 'test-model' },
      cwd: dir,
    },
    log: createLogger({ level: 'error', write: () => {} }),
  });
  return { agent, model, dir };
}
const CONFIG = `a2a:
  listen: http://127.0.0.1:0
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}, quotas: {message_bytes: 64, conversations: 2}}
    - {id: carol, role: user, match: {bearer: "{{secret:CAROL_TOKEN}}"}, quotas: {stored_bytes: 2000}}
    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}
`;

interface Reply {
  result?: { task?: { id?: string; status?: { state?: string } } };
  error?: { code: number; message: string };
}

/** A SendMessage over HTTP with these params. */
async function post(agent: Agent, token: string, params: Record<string, unknown>): Promise<Reply> {
  const res = await fetch(agent.a2aUrl ?? '', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
  return (await res.json()) as Reply;
}

/** A blocking SendMessage over HTTP: resolves once the turn ended (or with the refusal). */
function send(agent: Agent, token: string, contextId: string, text: string): Promise<Reply> {
  const message = { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId, parts: [{ text }] };
  return post(agent, token, { message });
}

const completed = (reply: Reply) => assert.equal(reply.result?.task?.status?.state, 'TASK_STATE_COMPLETED');

describe('per-principal quotas over A2A', () => {
  it('refuses past message_bytes, conversations and stored_bytes, naming each; nothing refused is stored', async () => {
    const { agent, model, dir } = await startAgent(CONFIG);
    const long = 'x'.repeat(100);
    let carolSent = 0;
    try {
      // message_bytes: bob (no quotas) sends the same 100 bytes fine; alice's limit is 64.
      completed(await within(send(agent, TOKENS.BOB_TOKEN, 'c1', long), 20_000, 'bob'));
      const big = await within(send(agent, TOKENS.ALICE_TOKEN, 'c1', long), 20_000, 'alice, too big');
      assert.equal(big.error?.code, RPC_CODES.quota_exceeded);
      assert.equal(
        big.error?.message,
        'quota message_bytes exceeded for principal user:alice: limit 64 bytes, this message needs 100',
      );

      // conversations: two are hers; a third is refused, while her own ones still take messages.
      completed(await within(send(agent, TOKENS.ALICE_TOKEN, 'c1', 'one'), 20_000, 'alice c1'));
      completed(await within(send(agent, TOKENS.ALICE_TOKEN, 'c2', 'two'), 20_000, 'alice c2'));
      const third = await within(send(agent, TOKENS.ALICE_TOKEN, 'c3', 'three'), 20_000, 'alice c3');
      assert.equal(third.error?.code, RPC_CODES.quota_exceeded);
      assert.match(third.error?.message ?? '', /^quota conversations exceeded for principal user:alice: limit 2 /);
      completed(await within(send(agent, TOKENS.ALICE_TOKEN, 'c1', 'still mine'), 20_000, 'alice c1 again'));

      // stored_bytes: carol's messages are accepted until the next would take her past 2000 stored bytes.
      let refused: Reply | null = null;
      for (let i = 0; i < 20 && refused === null; i++) {
        const reply = await within(send(agent, TOKENS.CAROL_TOKEN, 'c1', `${i} ${'y'.repeat(300)}`), 20_000, 'carol');
        if (reply.error) refused = reply;
        else carolSent++;
      }
      assert.ok(carolSent > 0, 'premise: her first messages fit');
      assert.equal(refused?.error?.code, RPC_CODES.quota_exceeded);
      assert.match(refused?.error?.message ?? '', /^quota stored_bytes exceeded for principal user:carol: limit 2000 /);
    } finally {
      await agent.close();
      await model.close();
    }
    // Nothing of a refused message was stored: no conversation, no message, no task.
    const store = new SqliteStore(dir);
    try {
      const heads = await store.conversations.heads();
      assert.deepEqual(
        heads.map((h) => h.id).filter((id) => id.startsWith('user:alice/')),
        ['user:alice/c1', 'user:alice/c2'],
      );
      const alice = (await store.conversations.get('user:alice/c1'))?.conversation.messages ?? [];
      assert.ok(!alice.some((m) => m.role === 'user' && m.text === long), 'the oversized message is not stored');
      const carol = heads.find((h) => h.id === 'user:carol/c1');
      assert.ok(carol && carol.bytes <= 2000, 'carol stays within her stored bytes');
      const carolMessages = (await store.conversations.get('user:carol/c1'))?.conversation.messages ?? [];
      assert.equal(carolMessages.filter((m) => m.role === 'user').length, carolSent);
      const tasks = await store.tasks.list({ principal: 'user:alice', limit: 100 });
      assert.equal(tasks.length, 3, 'a task for each accepted message of hers, none for a refused one');
    } finally {
      await store.close();
    }
  });
});

const BURST_CONFIG = `a2a:
  listen: http://127.0.0.1:0
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}, quotas: {conversations: 2}}
    - {id: carol, role: user, match: {bearer: "{{secret:CAROL_TOKEN}}"}, quotas: {stored_bytes: 3000}}
`;

/** A non-blocking SendMessage (the agent is paused: a blocking one would wait for a turn that does not start). */
function sendNow(agent: Agent, token: string, message: Record<string, unknown>): Promise<Reply> {
  return post(agent, token, { message, configuration: { returnImmediately: true } });
}

const text = (contextId: string, body: string, messageId = `m-${Math.random().toString(36).slice(2)}`) => ({
  messageId,
  contextId,
  parts: [{ text: body }],
});

describe('quotas count accepted messages not yet in their conversations', () => {
  it('refuses a burst past conversations and stored_bytes; a retry still gets its task; steering counts', async () => {
    const { agent, model } = await startAgent(BURST_CONFIG);
    try {
      runtimeOf(agent).supervisor.pause();
      // conversations: 2: six concurrent sends to six new contexts; two are accepted, four refused.
      const burst = await within(
        Promise.all([1, 2, 3, 4, 5, 6].map((i) => sendNow(agent, TOKENS.ALICE_TOKEN, text(`n${i}`, 'hi')))),
        20_000,
        'alice burst',
      );
      const accepted = burst.filter((r) => r.result?.task !== undefined);
      const refused = burst.filter((r) => r.error?.code === RPC_CODES.quota_exceeded);
      assert.equal(accepted.length, 2, 'two new conversations fit');
      assert.equal(refused.length, 4, 'the other four would pass the conversations quota');
      assert.match(
        refused[0]?.error?.message ?? '',
        /^quota conversations exceeded for principal user:alice: limit 2 /,
      );
      // Steering a third fresh context would create a conversation too.
      const mode = await sendNow(agent, TOKENS.ALICE_TOKEN, {
        messageId: 'mode-1',
        contextId: 'n9',
        parts: [{ data: { agentd: { op: 'mode', mode: 'plan' } } }],
      });
      assert.equal(mode.error?.code, RPC_CODES.quota_exceeded, 'mode on a fresh context counts as a new conversation');

      // stored_bytes: 3000: twelve 600-byte sends, one after another; five fit (5 × 600 = 3000).
      const first = text('s1', 'y'.repeat(600), 'carol-first');
      const replies: Reply[] = [];
      for (let i = 0; i < 12; i++) {
        const message = i === 0 ? first : text('s1', 'y'.repeat(600));
        replies.push(await within(sendNow(agent, TOKENS.CAROL_TOKEN, message), 20_000, `carol ${i}`));
      }
      assert.equal(replies.filter((r) => r.result?.task !== undefined).length, 5);
      const over = replies.find((r) => r.error !== undefined);
      assert.match(over?.error?.message ?? '', /^quota stored_bytes exceeded for principal user:carol: limit 3000 /);

      // The quota is full now; a retry of her first message is that message, not a new one: its task comes back.
      const retry = await within(sendNow(agent, TOKENS.CAROL_TOKEN, first), 20_000, 'carol retry');
      assert.equal(retry.error, undefined, 'a retry of an accepted message is not refused by a quota');
      assert.equal(retry.result?.task?.id, replies[0]?.result?.task?.id, 'the original task');

      runtimeOf(agent).supervisor.resume();
      await within(runtimeOf(agent).supervisor.whenIdle(), 60_000, 'the accepted messages run');
      assert.equal(runtimeOf(agent).supervisor.status().queued, 0);
    } finally {
      await agent.close();
      await model.close();
    }
  });
});
