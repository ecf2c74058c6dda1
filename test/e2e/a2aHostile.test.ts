// What a hostile client met at the daemon (issue 13 item 4, 5): a user's operator command is forbidden (not "task
// not found"), goal.* stays the operator's, ids come back as sent, deep nesting is invalid params, and the public
// card never shows the standing instruction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JSON_V1, rawRequest, rpc } from '../integration/a2a/listenerHarness.js';
import { type Daemon, startOverModel } from './daemon.js';

const INSTRUCTION = 'Private standing policy ZX-41: never discuss pricing.';
const TOKENS = { ALICE_TOKEN: 'alice-token-1234', OPERATOR_TOKEN: 'op-token-9999abc' };
const ALICE = { ...JSON_V1, Authorization: `Bearer ${TOKENS.ALICE_TOKEN}` };
const OPERATOR = { ...JSON_V1, Authorization: `Bearer ${TOKENS.OPERATOR_TOKEN}` };

const command = (op: string, args: Record<string, unknown> = {}, id: number | string = 1) =>
  rpc(
    'SendMessage',
    { message: { messageId: `m-${op}-${id}`, contextId: 'c1', parts: [{ data: { agentd: { op, ...args } } }] } },
    id,
  );

describe('the daemon against a hostile client', { timeout: 60_000 }, () => {
  let daemon: Daemon;
  let stop: () => Promise<void>;
  before(async () => {
    const lines = [
      'agent:',
      `  instruction: "${INSTRUCTION}"`,
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  card: {name: desk}',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
    ];
    ({ daemon, stop } = await startOverModel(lines, TOKENS));
  });
  after(() => stop());

  it('the public card never carries agent.instruction; its name and description are a2a.card’s', async () => {
    const reply = await rawRequest(daemon.url, null, {}, '/.well-known/agent-card.json');
    assert.equal(reply.status, 200);
    // Before, the card's description was agent.instruction, served to anyone.
    assert.ok(!reply.text.includes('ZX-41'), reply.text);
    const card = reply.json();
    assert.equal(card['name'], 'desk');
    assert.equal(card['description'], 'agentd: a durable agent daemon');
  });

  it('a user’s operator command is forbidden (-31403, HTTP 403), naming the command', async () => {
    for (const op of ['pause', 'drain', 'status']) {
      const reply = await rawRequest(daemon.url, command(op), ALICE);
      assert.equal(reply.status, 403, op);
      assert.deepEqual(reply.json()['error'], { code: -31403, message: `command "${op}" is for the operator` });
    }
    const paused = await rawRequest(daemon.url, command('pause'), OPERATOR);
    assert.equal(paused.status, 200, 'the premise: the operator may');
    assert.equal((await rawRequest(daemon.url, command('resume'), OPERATOR)).status, 200);
  });

  it('goal.* is the operator’s; mode is anyone’s, on their own conversation', async () => {
    const goal = await rawRequest(daemon.url, command('goal.set', { objective: 'run forever' }), ALICE);
    assert.equal(goal.status, 403);
    assert.equal((goal.json()['error'] as { code: number }).code, -31403);
    const mode = await rawRequest(daemon.url, command('mode', { mode: 'plan' }), ALICE);
    assert.equal(mode.status, 200);
    assert.ok(mode.json()['result'], mode.text);
  });

  it('an integer id past 2^53 comes back exactly as sent', async () => {
    const text = '{"jsonrpc":"2.0","id":12345678901234567891,"method":"GetTask","params":{"id":"nope"}}';
    // Premise: a JSON round trip (what the SDK's answer goes through) rounds this id.
    assert.equal(JSON.stringify(JSON.parse(text)['id']), '12345678901234567000');
    const reply = await rawRequest(daemon.url, text, OPERATOR);
    assert.match(reply.text, /^\{"jsonrpc":"2\.0","id":12345678901234567891,"error":\{"code":-32001/);
  });

  it('a data part nested 100,000 deep is invalid params, and the daemon goes on', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const text = `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"deep","parts":[{"text":"hi"},{"data":${deep}}]}}}`;
    // Premise: anything recursive over this value (the SDK's decoding, JSON.stringify) overflows the stack,
    // which the daemon answered as -32603 "internal error" before the depth check.
    assert.throws(() => JSON.stringify(JSON.parse(text)), RangeError);
    const reply = await rawRequest(daemon.url, text, OPERATOR);
    assert.deepEqual(reply.json()['error'], { code: -32602, message: 'params: nested deeper than 100 levels' });
    assert.equal((await rawRequest(daemon.url, null, {}, '/.well-known/agent-card.json')).status, 200);
  });
});
