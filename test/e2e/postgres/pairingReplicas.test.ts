// Web UI pairing across replicas (issue 18, interfaces §4.4): a code printed by replica A signs a browser in on
// replica B, once; the session it opens is honoured by A too; the store holds only hashes. Before codes and
// sessions lived in the store, each replica kept its own in memory: B refused A's code ("unknown, used or expired").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import type { Daemon } from '../daemon.js';
import { runAgentd } from '../harness.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const OPS_TOKEN = 'ops-pairing-replica-token-0123456789';
const PRINCIPALS = [
  '  pairing: {enabled: true}',
  '  principals:',
  `    - {id: ops, role: operator, match: {bearer: ${OPS_TOKEN}}}`,
];

/** A sign-in as the web page makes it: JSON from the daemon's own origin. */
function signIn(daemon: Daemon, code: string): Promise<Response> {
  return fetch(`${daemon.url}/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: daemon.url },
    body: JSON.stringify({ code }),
  });
}

describe('pairing across replicas over one PostgreSQL', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('pairing');
    model = await startScriptedModel({ turns: [{ content: 'unused' }] });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('a code from replica A signs in on replica B once, and the session works on A', async () => {
    const yaml = replicaYaml(model.url, '3s').replace('a2a:\n', `a2a:\n${PRINCIPALS.join('\n')}\n`);
    const [a, b] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    const minted = await runAgentd(['pair'], { env: { AGENTD_URL: a.url, AGENTD_TOKEN: OPS_TOKEN } });
    assert.equal(minted.code, 0, minted.stderr);
    const code = minted.stdout.trim();
    assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);

    const onB = await signIn(b, code);
    assert.equal(onB.status, 200, await onB.clone().text());
    assert.deepEqual(await onB.json(), { principal: 'operator', role: 'operator' });
    const cookie = (onB.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^agentd_session=/);
    // The session B opened is A's too: any replica serves the browser.
    const whoOnA = await fetch(`${a.url}/ui/session`, { headers: { cookie } });
    assert.equal(whoOnA.status, 200);
    assert.deepEqual(await whoOnA.json(), { principal: 'operator', role: 'operator' });
    // Single use across the fleet.
    const again = await signIn(a, code);
    assert.equal(again.status, 401);

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ key: string }>("SELECT key FROM fired_keys WHERE key LIKE 'ui.%'");
      assert.ok(
        rows.some((r) => r.key.startsWith('ui.session:')),
        'premise: the session is in the store',
      );
      const raw = code.replace('-', '');
      const value = cookie.slice('agentd_session='.length);
      for (const { key } of rows) {
        assert.ok(!key.includes(raw) && !key.includes(value), `only hashes are stored: ${key}`);
      }
    } finally {
      await db.end();
    }
    // Signing out on A ends the session on B as well.
    const out = await fetch(`${a.url}/ui/session`, { method: 'DELETE', headers: { cookie, origin: a.url } });
    assert.equal(out.status, 200);
    assert.equal((await fetch(`${b.url}/ui/session`, { headers: { cookie } })).status, 401);
  });
});
