// One principal cannot hold every connection with streams and blocking sends (issue 13): past its share
// (a2a.max_long_requests, at most half of a2a.max_connections) it gets -31429 and another principal is served.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil, within } from '../wait.js';
import { JSON_V1, type RawReply, type Running, rawRequest, rpc, startListener } from './listenerHarness.js';

const YAML = `  max_connections: 20
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}
    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}
`;
const ENV = { ALICE_TOKEN: 'alice-token-123456', BOB_TOKEN: 'bob-token-1234567' };
const as = (token: string) => ({ ...JSON_V1, Authorization: `Bearer ${token}` });
/** A blocking send the fake backend never settles: it holds its connection until the listener closes. */
const wait = (n: number) => rpc('SendMessage', { message: { messageId: `w${n}`, parts: [{ text: 'hold on' }] } }, n);

describe('A2aListener long requests per principal', { timeout: 30_000 }, () => {
  let running: Running;
  before(async () => {
    running = await startListener(YAML, ENV);
  });
  after(() => running.close());

  it('refuses a principal past its share of long requests, so another principal is still served', async () => {
    const refused: RawReply[] = [];
    // Premise: 20 blocking sends would fill a2a.max_connections (20) with busy connections, and a full listener
    // whose connections are all busy closes every new one: bob's request below would fail.
    const held = Array.from({ length: 20 }, (_, n) =>
      rawRequest(running.listener.url, wait(n), as(ENV.ALICE_TOKEN)).then((reply) => refused.push(reply)),
    );
    await waitUntil(() => refused.length === 10, 5_000, "alice's requests past her share are answered at once");
    for (const reply of refused) {
      const error = reply.json()['error'] as { code: number; message: string };
      assert.equal(error.code, -31429);
      assert.match(error.message, /^principal user:alice holds 10 streams or blocking sends already/);
    }
    const quick = rpc('SendMessage', {
      message: { messageId: 'b1', parts: [{ text: 'hi' }] },
      configuration: { returnImmediately: true },
    });
    const bob = await within(rawRequest(running.listener.url, quick, as(ENV.BOB_TOKEN)), 5_000, "bob's request");
    assert.equal(bob.status, 200);
    assert.ok((bob.json()['result'] as { task: { id: string } }).task.id);
    assert.equal(refused.length, 10, 'ten of alice blocking sends are still held');
    void held;
  });
});
