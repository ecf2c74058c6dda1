// Who triggered work acts for (issue 17 item 4, producers reference §3.9): a start's `principal` (default nobody,
// the operator's reach), and a webhook with `auth: {a2a: true}` acting for the caller its bearer token names.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, post, runsOf } from './startRig.js';

const YAML = `
a2a:
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}
workflows:
  - name: hooked
    steps:
      hook: {kind: webhook, path: /hooks/who, auth: {a2a: true}, idempotency: false}
      f: {kind: finish, depends_on: [hook], output: ok}
  - name: open
    steps:
      hook: {kind: webhook, path: /hooks/open, auth: {none: true}, idempotency: false}
      f: {kind: finish, depends_on: [hook], output: ok}
  - name: tick
    steps:
      s: {kind: schedule, every: 200ms, principal: "agent:ci"}
      f: {kind: finish, depends_on: [s], output: ok}
  - name: sig
    steps:
      s: {kind: signal, name: go, principal: "user:bob"}
      f: {kind: finish, depends_on: [s], output: ok}
`;

describe('start principals', () => {
  it("runs act for the start's principal, a2a-authenticated webhook callers for themselves, else for nobody", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-principals-'));
    const { runtime, url, events, workflows } = await daemon(dir, YAML, { ALICE_TOKEN: 'alice-token-1234-abcd' });
    const principalOf = async (workflow: string) => {
      const id = String(runsOf(events, workflow)[0]?.['run']);
      return (await runtime.store.workflows.getRun(id))?.principal;
    };
    try {
      await workflows.desk?.opened;
      const refused = await post(`${url}/hooks/who`, '{}', { Authorization: 'Bearer wrong-token-1234-abcd' });
      assert.equal(refused.status, 401, 'an unknown caller is refused');
      const anonymous = await post(`${url}/hooks/who`, '{}');
      assert.equal(anonymous.status, 401, 'no token: no principal matches');
      const alice = await post(`${url}/hooks/who`, '{}', { Authorization: 'Bearer alice-token-1234-abcd' });
      assert.equal(alice.status, 202);
      await waitUntil(() => doneOf(events, 'hooked').length === 1, 10_000, 'the hooked run ended');
      assert.equal(runsOf(events, 'hooked').length, 1, 'the refused deliveries started nothing');
      assert.equal(await principalOf('hooked'), 'user:alice');

      assert.equal((await post(`${url}/hooks/open`, '{}')).status, 202);
      await waitUntil(() => doneOf(events, 'open').length === 1, 10_000, 'the open run ended');
      assert.equal(await principalOf('open'), null, 'premise: without a principal a run acts for nobody');

      assert.equal(await workflows.desk?.signal('go', {}, 'k1'), 1);
      await waitUntil(() => doneOf(events, 'sig').length === 1, 10_000, 'the signalled run ended');
      assert.equal(await principalOf('sig'), 'user:bob');

      await waitUntil(() => doneOf(events, 'tick').length >= 1, 10_000, 'a scheduled run ended');
      assert.equal(await principalOf('tick'), 'agent:ci');
      assert.equal(runsOf(events, 'tick')[0]?.['principal'], 'agent:ci', 'run.start names the principal');
    } finally {
      await runtime.stop();
    }
  });
});
