// PostgresStore over a real PostgreSQL server: the shared Store behaviour suite (the same one SQLite and memory
// pass), then what only this backend promises: versioned migrations, a refused newer schema, an unreachable
// database named by host without its credentials, and atomic budget increments from concurrent writers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { exitCodeForError } from '../../../src/cli/exitCodes.js';
import { connectStore } from '../../../src/store/openStore.js';
import { PG_SCHEMA_VERSION } from '../../../src/store/postgresSchema.js';
import { PostgresStore } from '../../../src/store/postgresStore.js';
import { createTestDatabase, resetTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { describeStoreBehaviour } from '../../unit/store/storeBehaviour.js';
import { taskRecord } from '../../unit/store/storeFixtures.js';
import { subagentRecord } from '../../unit/store/subagentBehaviour.js';

let url = '';
before(async () => {
  url = await createTestDatabase('store');
});
after(stopLazyServer);

describeStoreBehaviour('PostgresStore', async () => {
  await resetTestDatabase(url);
  return await PostgresStore.open({ url, poolSize: 4 });
});

describe('PostgresStore migrations and connections', () => {
  it('migrates a fresh database to the newest schema, bumps the generation on each open', async () => {
    await resetTestDatabase(url);
    const first = await connectStore({ kind: 'postgres', path: '', url, pool_size: 2 });
    assert.equal(first.kind, 'postgres');
    assert.equal(first.generation, 1);
    await first.close();
    const second = await connectStore({ kind: 'postgres', path: '', url, pool_size: 2 });
    assert.equal(second.generation, 2);
    await second.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(`SELECT value FROM agentd_meta WHERE key = 'schema_version'`);
    await client.end();
    assert.equal(Number(rows[0].value), PG_SCHEMA_VERSION);
  });

  it('refuses a database whose schema is newer than it knows (exit 2), writing nothing', async () => {
    await resetTestDatabase(url);
    await (await PostgresStore.open({ url, poolSize: 1 })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`UPDATE agentd_meta SET value = $1 WHERE key = 'schema_version'`, [PG_SCHEMA_VERSION + 1]);
    const refused = await PostgresStore.open({ url, poolSize: 1 }).catch((err: unknown) => err);
    const { rows } = await client.query(`SELECT value FROM agentd_meta WHERE key = 'generation'`);
    await client.end();
    assert.match(String(refused), /schema version \d+ is newer than this agentd supports/);
    assert.equal(exitCodeForError(refused), 2);
    // The refused open rolled back its generation bump.
    assert.equal(Number(rows[0].value), 1);
  });

  it('names the host of an unreachable database, never its credentials (exit 2)', async () => {
    const dead = 'postgres://agent:hunter2-secret@127.0.0.1:1/agentd';
    const refused = await PostgresStore.open({ url: dead, poolSize: 1, connectTimeoutMs: 2_000 }).catch(
      (err: unknown) => err,
    );
    assert.match(String(refused), /store postgres 127\.0\.0\.1:1\/agentd is unreachable/);
    assert.doesNotMatch(String(refused), /hunter2|agent:/);
    assert.equal(exitCodeForError(refused), 2);
  });

  it('adds budget deltas from concurrent writers atomically (no lost increment)', async () => {
    await resetTestDatabase(url);
    const a = await PostgresStore.open({ url, poolSize: 4 });
    const b = await PostgresStore.open({ url, poolSize: 4 });
    const delta = { scope: 'fleet', window: 'minute', index: 7, tokens: 10, requests: 1 };
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).budget.add([delta])));
    const [counter] = await a.budget.load();
    await a.close();
    await b.close();
    assert.deepEqual(counter, { ...delta, tokens: 400, requests: 40 });
  });

  it('refuses an answer to a question asked again in the same millisecond (issue 19 review item 7)', async () => {
    await resetTestDatabase(url);
    const store = await PostgresStore.open({ url, poolSize: 2 });
    const asking = { state: 'input_required' as const, updated: 100 };
    const first = taskRecord({ ...asking, question: { id: 'q1', text: 'which one?' } });
    await store.tasks.save(first);
    // Asked again (a refused answer) within the same millisecond: only the question's id differs.
    const again = { ...first, question: { id: 'q2', text: 'which one, again?' } };
    await store.tasks.saveAnswer?.(again, first);
    const late = { ...first, state: 'working' as const, updated: 101, question: { id: 'q1', text: '', answer: 'a' } };
    const refused = await store.tasks.saveAnswer?.(late, first).catch((err: unknown) => err);
    const kept = await store.tasks.get(first.id);
    await store.close();
    assert.match(String(refused), /changed since it was read/);
    assert.equal(kept?.question?.id, 'q2');
  });

  it("a charge adds to its callers' subtree spend in place, never rewriting them (issue 19 review item 6)", async () => {
    await resetTestDatabase(url);
    const store = await PostgresStore.open({ url, poolSize: 2 });
    const parent = subagentRecord({ handle: 'sub-1', status: 'completed', tree_tokens: 100 });
    await store.subagents.save(parent);
    const by = { ...parent.requested_by, subagent: 'sub-1' };
    const child = subagentRecord({ handle: 'sub-2', status: 'running', requested_by: by, tree_tokens: 5 });
    // The charging replica's copy of the caller is stale (still running, an older subtree spend).
    await store.subagents.saveAll([child, { ...parent, status: 'running', tree_tokens: 40 }], 5);
    // A whole save of the caller from a copy that missed the charge does not lower its subtree spend.
    await store.subagents.save({ ...parent, tree_tokens: 100 });
    const stored = new Map((await store.subagents.list()).map((r) => [r.handle, r]));
    await store.close();
    assert.equal(stored.get('sub-1')?.status, 'completed');
    assert.equal(stored.get('sub-1')?.tree_tokens, 105);
    assert.equal(stored.get('sub-2')?.tree_tokens, 5);
  });
});
