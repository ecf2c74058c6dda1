// The run lease book's heartbeat tells the engine of each run it found owned by another replica (issue 19 review):
// without it the engine kept driving its stale copy. The statements run against a recording fake query.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { RunLeaseBook } from '../../../src/store/postgresRunLeases.js';

const quiet = { info: () => {}, warn: () => {} };

describe('RunLeaseBook', () => {
  it('tells onLost of each owned run the renewal no longer finds here', async () => {
    const book = new RunLeaseBook('r1', quiet, () => 1_000);
    const lost: string[] = [];
    book.onLost = (id) => lost.push(id);
    let renewed: string[] = ['a'];
    const q = async (sql: string) =>
      ({
        rowCount: 1,
        rows: sql.includes('RETURNING id') ? renewed.map((id) => ({ id })) : [],
      }) as unknown as pg.QueryResult;
    for (const id of ['a', 'b'])
      await book.create(q, { id, startKey: id, status: 'running', created: 1 } as WorkflowRun);
    await book.renew(q);
    assert.deepEqual(lost, ['b']);
    renewed = [];
    await book.renew(q);
    assert.deepEqual(lost, ['b', 'a']);
  });
});
