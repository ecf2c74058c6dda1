// Budget counters over PostgreSQL, shared by the replicas (issue 19 item 4): charges are atomic increments, and a
// dispatch admission reads the shared window and reserves in it under one advisory lock per scope, so two replicas
// admitting at once cannot both take the window's last room. A reservation lives while its replica renews it
// (the database's clock decides), so a dead replica's in-flight estimates stop counting on their own.
import type { BudgetCounter } from '../domain/budget.js';
import { RESERVATION_TTL_MS } from './budgetPort.js';
import type { PgRunner } from './postgresProducerPorts.js';
import type { Query } from './postgresTransaction.js';
import type { BudgetHold, BudgetPort, SharedAdmission } from './store.js';

const NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

const SQL = {
  counters: `SELECT scope, "window", idx AS "index", tokens, requests FROM budget_counters ORDER BY scope, "window"`,
  // writeRules.addCounter in one atomic statement, so replicas charging at once never lose an increment.
  add: `INSERT INTO budget_counters AS b (scope, "window", idx, tokens, requests)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (scope, "window") DO UPDATE SET
      tokens = CASE WHEN excluded.idx > b.idx THEN excluded.tokens
                    WHEN excluded.idx = b.idx THEN b.tokens + excluded.tokens ELSE b.tokens END,
      requests = CASE WHEN excluded.idx > b.idx THEN excluded.requests
                      WHEN excluded.idx = b.idx THEN b.requests + excluded.requests ELSE b.requests END,
      idx = GREATEST(b.idx, excluded.idx)`,
  // One lock per scope, taken in name order (replicas locking the same scopes never deadlock).
  lock: `SELECT pg_advisory_xact_lock(hashtextextended('agentd.budget:' || s, 0))
    FROM (SELECT DISTINCT unnest($1::text[]) AS s ORDER BY 1) AS scopes`,
  scoped: `SELECT scope, "window", idx AS "index", tokens, requests FROM budget_counters WHERE scope = ANY($1::text[])`,
  held: `SELECT scope, "window", idx AS "index", sum(tokens)::bigint AS tokens, 0 AS requests
    FROM budget_reservations WHERE scope = ANY($1::text[]) AND until > ${NOW_MS} GROUP BY scope, "window", idx`,
  hold: `INSERT INTO budget_reservations (id, scope, "window", idx, tokens, until)
    VALUES ($1, $2, $3, $4, $5, ${NOW_MS} + $6)`,
  shrink: `UPDATE budget_reservations SET tokens = $2 WHERE id = $1`,
  drop: `DELETE FROM budget_reservations WHERE id = $1`,
  renew: `UPDATE budget_reservations SET until = ${NOW_MS} + $2 WHERE id = ANY($1::text[])`,
  // Reservations nobody renews any more (their replica died) are cleared as admissions pass.
  expired: `DELETE FROM budget_reservations WHERE until < ${NOW_MS} - $1`,
} as const;

/** Numbers from the driver (BIGINT arrives as a string). */
function counters(rows: readonly Record<string, unknown>[]): BudgetCounter[] {
  return rows.map((r) => ({
    scope: String(r['scope']),
    window: String(r['window']),
    index: Number(r['index']),
    tokens: Number(r['tokens']),
    requests: Number(r['requests']),
  }));
}

async function settleHolds(q: Query, holds: readonly BudgetHold[]): Promise<void> {
  for (const h of holds) {
    if (h.tokens > 0) await q(SQL.shrink, [h.id, Math.floor(h.tokens)]);
    else await q(SQL.drop, [h.id]);
  }
}

async function reserve(q: Query, req: SharedAdmission): Promise<{ counters: BudgetCounter[]; reserved: boolean }> {
  const scopes = [...req.scopes];
  await q(SQL.lock, [scopes]);
  await q(SQL.expired, [RESERVATION_TTL_MS]);
  const read = counters((await q(SQL.scoped, [scopes])).rows);
  const held = counters((await q(SQL.held, [scopes])).rows);
  const holds = req.decide(read, held);
  if (holds === null) return { counters: read, reserved: false };
  for (const h of holds) {
    await q(SQL.hold, [req.id, h.scope, h.window, h.index, Math.floor(h.tokens), RESERVATION_TTL_MS]);
    // The admitted turn's request counts at once, in the same transaction as its hold.
    await q(SQL.add, [h.scope, h.window, h.index, 0, h.requests]);
  }
  return { counters: read, reserved: true };
}

/** The budget port of the replicas' store. */
export function pgBudgetPort(db: PgRunner): BudgetPort {
  return {
    load: () => db.read('read budget counters', async (q) => counters((await q(SQL.counters)).rows)),
    add: (deltas, holds = []) =>
      db.tx('add to budget counters', async (q) => {
        // The scopes' locks first, in name order as an admission takes them: the counter rows both update are
        // then never locked in opposite orders (a deadlock abort).
        if (deltas.length > 0) await q(SQL.lock, [deltas.map((d) => d.scope)]);
        for (const d of deltas) await q(SQL.add, [d.scope, d.window, d.index, d.tokens, d.requests]);
        await settleHolds(q, holds);
      }),
    reserve: (req) => db.tx('reserve in the shared budget', (q) => reserve(q, req)),
    renew: (ids) =>
      db.read('renew budget reservations', async (q) => {
        if (ids.length > 0) await q(SQL.renew, [[...ids], RESERVATION_TTL_MS]);
      }),
  };
}
