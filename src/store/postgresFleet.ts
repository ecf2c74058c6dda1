// What replicas tell each other between sweeps (issue 19 item 4; interfaces reference §4.4): NOTIFY on new pending
// work a replica did not take itself and on a cancel request, heard over one LISTEN connection per replica; and
// the durable cancel requests (`cancel_requests`) the lease holder acts on. A missed NOTIFY (the listener was
// reconnecting) costs only time: the inbox sweep still finds the work and the cancel requests.
import pg from 'pg';
import { describeError } from '../errors.js';
import type { PostgresOptions } from './postgresConnect.js';
import type { LeaseLog } from './postgresLeases.js';
import type { FleetControl, FleetSignal, FleetView } from './store.js';

type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/** The NOTIFY channels, by what they carry. */
export const FLEET_CHANNELS = {
  inbox: 'agentd_inbox',
  cancel: 'agentd_cancel',
  answer: 'agentd_answer',
  control: 'agentd_control',
} as const;

/** How long the listener waits before it connects again after losing its connection. */
const RELISTEN_MS = 1_000;

const SQL = {
  // The payload is the sender's wall clock (ms): the receiver's lag metric.
  notify: 'SELECT pg_notify($1, $2)',
  request: `INSERT INTO cancel_requests (task_id, principal, ts) VALUES ($1, $2, $3)
    ON CONFLICT (task_id) DO NOTHING`,
  // Requests for the conversations this replica holds, and those whose task ended (nothing left to cancel).
  held: `SELECT c.task_id, t.inbox_event, t.state FROM cancel_requests c JOIN tasks t ON t.id = c.task_id
    WHERE t.conversation IN (SELECT conversation_id FROM conversation_leases WHERE holder = $1)
       OR t.state IN ('completed', 'failed', 'canceled', 'rejected')`,
  done: 'DELETE FROM cancel_requests WHERE task_id = ANY($1)',
  // The operator's pause or resume, kept for the fleet: the last one given holds.
  storeControl: `INSERT INTO fleet_controls (key, value, ts) VALUES ('pause', $1, $2)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, ts = excluded.ts`,
  readControl: `SELECT value FROM fleet_controls WHERE key = 'pause'`,
  // Requests for tasks that follow a run (no turn of theirs): whichever replica runs the run acts.
  runs: `SELECT c.task_id, t.json FROM cancel_requests c JOIN tasks t ON t.id = c.task_id
    WHERE t.inbox_event IS NULL AND t.state NOT IN ('completed', 'failed', 'canceled', 'rejected')`,
  // Workflow runs cancelled at a replica that does not run them; a request whose run ended or is gone goes too.
  requestRun: `INSERT INTO run_cancel_requests (run_id, reason, ts) VALUES ($1, $2, $3)
    ON CONFLICT (run_id) DO NOTHING`,
  runRequests: `SELECT r.run_id, r.reason, w.live FROM run_cancel_requests r
    LEFT JOIN workflow_runs w ON w.id = r.run_id ORDER BY r.ts, r.run_id`,
  runRequestsDone: 'DELETE FROM run_cancel_requests WHERE run_id = ANY($1)',
  // A subagent's requests (keyed `subagent:<handle>`, the reason as principal), with its record's status if any.
  subagentCancels: `SELECT c.task_id, c.principal, s.json FROM cancel_requests c
    LEFT JOIN subagents s ON 'subagent:' || s.handle = c.task_id WHERE c.task_id LIKE 'subagent:%'`,
} as const;

export interface FleetDeps {
  opts: PostgresOptions;
  log: LeaseLog;
  wall: () => number;
  /** The pool's autocommit query. */
  query: Query;
  /** This replica's leases: its holder name (it changes at the first claim). */
  leases: { readonly holder: string };
}

/** One replica's LISTEN connection and its side of the cancel requests. */
export class PgFleet implements FleetView {
  readonly #listeners = new Set<(signal: FleetSignal) => void>();
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly deps: FleetDeps) {}

  /** Connects the listener; a failure is logged and retried (the sweep covers the gap). */
  async listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.deps.opts.url, connectionTimeoutMillis: 5_000 });
    client.on('notification', (msg) => this.#heard(msg.channel, msg.payload));
    client.on('error', (err) => this.#lost(client, err));
    try {
      await client.connect();
      for (const channel of Object.values(FLEET_CHANNELS)) await client.query(`LISTEN ${channel}`);
      if (this.#closed) await client.end();
      else this.#client = client;
    } catch (err) {
      this.#lost(client, err);
    }
  }

  #lost(client: pg.Client, err: unknown): void {
    if (this.#client === client) this.#client = null;
    client.end().catch(() => {});
    if (this.#closed || this.#retry !== undefined) return;
    this.deps.log.warn('store.connection_lost', { error: `listener: ${describeError(err)}` });
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.listen();
    }, RELISTEN_MS);
    this.#retry.unref();
  }

  #heard(channel: string, payload: string | undefined): void {
    const kinds = Object.entries(FLEET_CHANNELS) as Array<[FleetSignal['channel'], string]>;
    const kind = kinds.find(([, name]) => name === channel)?.[0] ?? 'inbox';
    // The payload: the sender's wall clock, then (control) the command.
    const [at, op] = (payload ?? '').split(' ');
    const sent = Number(at);
    const lagMs = Number.isFinite(sent) ? Math.max(0, this.deps.wall() - sent) : 0;
    const control = op === 'pause' || op === 'resume' ? { op: op as FleetControl } : {};
    for (const listener of this.#listeners) listener({ channel: kind, lagMs, ...control });
  }

  onSignal(listener: (signal: FleetSignal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async requestCancel(taskId: string, principal: string | null): Promise<void> {
    const { query, wall } = this.deps;
    await query(SQL.request, [taskId, principal, wall()]);
    await this.notify(query, 'cancel');
    this.deps.log.info('lease.cancel_requested', { task: taskId });
  }

  async announceAnswer(): Promise<void> {
    await this.notify(this.deps.query, 'answer');
  }

  async announceControl(op: FleetControl): Promise<void> {
    // Stored first: a NOTIFY that is lost (or heard by nobody yet) is made up by each replica's reading of it.
    await this.deps.query(SQL.storeControl, [op, this.deps.wall()]);
    await this.deps.query(SQL.notify, [FLEET_CHANNELS.control, `${this.deps.wall()} ${op}`]);
  }

  async readControl(): Promise<FleetControl | null> {
    const value = (await this.deps.query(SQL.readControl)).rows[0]?.value;
    return value === 'pause' || value === 'resume' ? value : null;
  }

  get replica(): string {
    return this.deps.leases.holder;
  }

  /** Sends a NOTIFY; inside a transaction, it is delivered at the commit (never for a rolled-back one). */
  async notify(q: Query, channel: keyof typeof FLEET_CHANNELS): Promise<void> {
    await q(SQL.notify, [FLEET_CHANNELS[channel], String(this.deps.wall())]);
  }

  async takeCancels(act: (inboxEvent: string) => boolean): Promise<number> {
    const { rows } = await this.deps.query(SQL.held, [this.deps.leases.holder]);
    const done: string[] = [];
    for (const row of rows as Array<{ task_id: string; inbox_event: string | null; state: string }>) {
      const ended = ['completed', 'failed', 'canceled', 'rejected'].includes(row.state);
      // One the supervisor does not know yet stays for the next look (the claim is about to queue it).
      if (ended || row.inbox_event === null || act(row.inbox_event)) done.push(row.task_id);
    }
    if (done.length > 0) await this.deps.query(SQL.done, [done]);
    return done.length;
  }

  async takeRunCancels(act: (run: string) => Promise<boolean>): Promise<number> {
    const { rows } = await this.deps.query(SQL.runs);
    const done: string[] = [];
    for (const row of rows as Array<{ task_id: string; json: string }>) {
      const run = (JSON.parse(row.json) as { run?: unknown }).run;
      if (typeof run === 'string' && (await act(run))) done.push(row.task_id);
    }
    if (done.length > 0) await this.deps.query(SQL.done, [done]);
    return done.length;
  }

  async requestRunCancel(run: string, reason: string): Promise<void> {
    const { query, wall } = this.deps;
    await query(SQL.requestRun, [run, reason, wall()]);
    await this.notify(query, 'cancel');
    this.deps.log.info('lease.cancel_requested', { run });
  }

  async takeRunRequests(act: (run: string, reason: string) => Promise<boolean>): Promise<number> {
    const { rows } = await this.deps.query(SQL.runRequests);
    const done: string[] = [];
    for (const row of rows as Array<{ run_id: string; reason: string; live: boolean | null }>) {
      if (row.live !== true || (await act(row.run_id, row.reason))) done.push(row.run_id);
    }
    if (done.length > 0) await this.deps.query(SQL.runRequestsDone, [done]);
    return done.length;
  }

  async requestSubagentCancel(handle: string, reason: string): Promise<void> {
    const { query, wall } = this.deps;
    await query(SQL.request, [`subagent:${handle}`, reason, wall()]);
    await this.notify(query, 'cancel');
    this.deps.log.info('lease.cancel_requested', { handle });
  }

  async takeSubagentCancels(act: (handle: string, reason: string) => boolean): Promise<number> {
    const { rows } = await this.deps.query(SQL.subagentCancels);
    const done: string[] = [];
    for (const row of rows as Array<{ task_id: string; principal: string | null; json: string | null }>) {
      const status = row.json === null ? null : (JSON.parse(row.json) as { status?: string }).status;
      const ended = status === null || !['spawned', 'running'].includes(String(status));
      if (ended || act(row.task_id.slice('subagent:'.length), row.principal ?? 'cancelled')) done.push(row.task_id);
    }
    if (done.length > 0) await this.deps.query(SQL.done, [done]);
    return done.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }
}
