// ListTasks over a real SQLite store (issue 13 item 9): pages follow nextPageToken to the end, the status filter
// applies before the page is cut, and totalSize counts what the query selects.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { A2aListener } from '../../../src/a2a/listener.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { compileConfig } from '../../../src/config/compile.js';
import type { TaskRecord } from '../../../src/domain/task.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { taskRecord } from '../../unit/store/storeFixtures.js';
import { JSON_V1, rawRequest, rpc } from './listenerHarness.js';

const NEWER = 120;

interface Page {
  tasks?: Array<{ id: string; status: { state: string } }>;
  nextPageToken?: string;
  totalSize?: number;
}

describe('ListTasks paging', { timeout: 20_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-list-'));
  let store: SqliteStore;
  let listener: A2aListener;
  let oldWorking: TaskRecord;
  const list = async (params: Record<string, unknown>) => {
    const reply = await rawRequest(listener.url, rpc('ListTasks', params), JSON_V1);
    return reply.json() as { result?: Page; error?: { code: number; message: string } };
  };

  before(async () => {
    store = new SqliteStore(dir);
    oldWorking = taskRecord({ principal: 'operator', state: 'working', updated: 1_000 });
    await store.tasks.save(oldWorking);
    for (let i = 0; i < NEWER; i++) {
      await store.tasks.save(taskRecord({ principal: 'operator', state: 'completed', updated: 2_000 + (i % 7) }));
    }
    writeFileSync(join(dir, 'a.yaml'), 'a2a:\n  listen: http://127.0.0.1:0\n');
    const config = compileConfig({ files: ['a.yaml'], env: {}, flags: {}, cwd: dir });
    const supervisor = {} as SupervisorPort;
    const backend = new TaskBackend({
      store,
      log: silentLogger,
      now: Date.now,
      drain: () => {},
      supervisor,
      accept: () => Promise.reject(new Error('no sends here')),
    });
    listener = await A2aListener.start({ config, backend, log: silentLogger, instance: { name: 'x', version: '1' } });
  });
  after(async () => {
    await listener.close();
    await store.close();
  });

  it('finds a WORKING task older than a hundred others (the filter applies before the limit)', async () => {
    // The premise: the newest hundred hold no working task, so filtering a hundred-task page found nothing.
    const newest = await store.tasks.list({ principal: null, limit: 100 });
    assert.ok(newest.every((t) => t.state !== 'working'));
    const page = await list({ status: 'TASK_STATE_WORKING', pageSize: 10 });
    assert.deepEqual(
      page.result?.tasks?.map((t) => [t.id, t.status.state]),
      [[oldWorking.id, 'TASK_STATE_WORKING']],
    );
    assert.equal(page.result?.totalSize, 1);
    assert.equal(page.result?.nextPageToken, undefined, 'no next page: the token is omitted');
  });

  it('pages through every task once, newest created first, and the last page has no token', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await list({ pageSize: 50, ...(token ? { pageToken: token } : {}) });
      assert.equal(page.result?.totalSize, NEWER + 1);
      seen.push(...(page.result?.tasks ?? []).map((t) => t.id));
      token = page.result?.nextPageToken;
      pages++;
    } while (token !== undefined && pages < 10);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, NEWER + 1, 'each task once');
    const all = await store.tasks.list({ principal: null, limit: 1_000 });
    assert.deepEqual(
      seen,
      all.map((t) => t.id),
      'in the listing order',
    );
    assert.equal(seen.at(-1), oldWorking.id);
  });

  it('a page token it did not give, or gave for another query, is -32602', async () => {
    const reply = await list({ pageToken: 'not-a-token' });
    assert.equal(reply.error?.code, -32602);
    const token = (await list({ pageSize: 10 })).result?.nextPageToken;
    assert.ok(token);
    const other = await list({ pageSize: 10, pageToken: token, contextId: 'ctx-1' });
    assert.equal(other.error?.code, -32602);
    assert.match(
      other.error?.message ?? '',
      /^params\.pageToken: not a token ListTasks gave this caller for this query/,
    );
  });

  it('lists a task updated while a caller pages exactly once (the order does not follow updates)', async () => {
    const first = await list({ pageSize: 50 });
    const seen = (first.result?.tasks ?? []).map((t) => t.id);
    assert.ok(!seen.includes(oldWorking.id), 'the old task is on a later page');
    // Premise: in newest-updated-first order this update moves the task ahead of the cursor, onto a page already
    // read, so following the token never reaches it.
    await store.tasks.save({ ...oldWorking, updated: 99_000 });
    let token = first.result?.nextPageToken;
    for (let pages = 0; token !== undefined && pages < 10; pages++) {
      const page = await list({ pageSize: 50, pageToken: token });
      seen.push(...(page.result?.tasks ?? []).map((t) => t.id));
      token = page.result?.nextPageToken;
    }
    assert.equal(seen.filter((id) => id === oldWorking.id).length, 1);
    assert.equal(new Set(seen).size, NEWER + 1, 'each task once');
  });
});
