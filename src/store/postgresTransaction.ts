// One write transaction of the replicas' store, on a pooled connection (issue 19). PostgreSQL aborts one side of
// a deadlock (40P01) or a serialization failure (40001) between replicas' concurrent transactions: the aborted side
// committed nothing, so it runs again (a few times, after a short random pause) instead of failing the fold, claim
// or accept it carried.
import type pg from 'pg';
import { pgFailure } from './postgresConnect.js';

export type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/** The SQLSTATEs after which the whole transaction is run again. */
export const RETRIED_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001']);

/** How many times a transaction runs at most. */
export const TRANSACTION_ATTEMPTS = 5;

/** True for an error PostgreSQL raised to abort a transaction that may simply run again. */
export function isRetriedAbort(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRIED_SQLSTATES.has(code);
}

/** Up to 20 ms times the attempt, at random: two replicas that deadlocked do not meet again in step. */
function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20 * attempt)));
}

/**
 * Runs `op` inside BEGIN … COMMIT on one pooled connection; an abort in RETRIED_SQLSTATES runs it again (at most
 * TRANSACTION_ATTEMPTS times). `op` may run more than once: what it does outside the database must be safe to repeat.
 * Other failures roll back and are mapped by `pgFailure` (`where` names the database, `doing` the operation).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  where: string,
  doing: string,
  op: (q: Query) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient | undefined;
    // A connection the server ends between two queries (idle_in_transaction_session_timeout after the process was
    // stopped) emits 'error' on the checked-out client, which the pool does not hear: unheard, it ends the process.
    // Heard here, the next query fails and the client is destroyed, not pooled.
    let lost: Error | undefined;
    const onLost = (err: Error) => {
      lost = err;
    };
    try {
      client = await pool.connect();
      const c = client;
      c.on('error', onLost);
      await c.query('BEGIN');
      const result = await op((sql, params) => c.query(sql, params));
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await client?.query('ROLLBACK').catch(() => {});
      if (attempt < TRANSACTION_ATTEMPTS && isRetriedAbort(err)) {
        client?.removeListener('error', onLost);
        client?.release(lost);
        client = undefined;
        await pause(attempt);
        continue;
      }
      throw pgFailure(err, where, doing);
    } finally {
      client?.removeListener('error', onLost);
      client?.release(lost);
    }
  }
}
