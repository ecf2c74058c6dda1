// A connection the server ends inside a transaction (issue 19): a replica SIGSTOPped mid-transaction finds, when it
// resumes, that PostgreSQL ended the session (idle_in_transaction_session_timeout, set so a stopped replica cannot hold
// lease rows locked). The checked-out client then emits 'error' between two queries; unheard, that ended the whole
// process (leaseLoss.test.ts saw R1 die on SIGCONT). Now the transaction fails with a store error and the pool goes on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { inTransaction } from '../../../src/store/postgresTransaction.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a transaction whose session the server ended', () => {
  let url: string;
  before(async () => {
    url = await createTestDatabase('lost_transaction');
  });
  after(async () => {
    await stopLazyServer();
  });

  it('fails with a store error instead of ending the process, and the pool serves the next call', async () => {
    const pool = new pg.Pool({ connectionString: url, idle_in_transaction_session_timeout: 200 });
    pool.on('error', () => {});
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    // node:test reports an uncaught exception as the test's failure; listening too lets the test say why.
    process.on('uncaughtException', onUncaught);
    try {
      const idle = inTransaction(pool, 'the test database', 'wait inside a transaction', async (q) => {
        await q('SELECT 1');
        await sleep(1_500);
        return q('SELECT 1');
      });
      await assert.rejects(idle, (err: Error) => /the test database/.test(err.message));
      assert.deepEqual(uncaught, [], 'nothing went unheard');
      const again = await inTransaction(pool, 'the test database', 'read', (q) => q('SELECT 2 AS n'));
      assert.equal(again.rows[0]?.n, 2);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });
});
