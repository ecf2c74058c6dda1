// Workflow run ownership across replicas (issue 19): a live run is driven by one replica at a time, its owner.
// The replica that creates a run owns it at epoch 1; the owner's hold is renewed by the lease heartbeat; a run
// whose owner's hold ran out (the replica died) is taken by another one's claim at the next epoch. Every save of
// a run is fenced: it writes only while the row still names this replica at the epoch it took, so a replica whose
// run was adopted commits nothing more for it (store.fenced). Hold times are on the database's clock.
import type pg from 'pg';
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { DaemonError } from '../errors.js';
import type { LeaseLog } from './postgresLeases.js';

type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const SQL = {
  insert: `INSERT INTO workflow_runs (id, start_key, live, created, json, owner, owner_epoch, owner_until)
    VALUES ($1, $2, $3, $4, $5, $6, 1, ${DB_NOW} + $7) ON CONFLICT DO NOTHING`,
  // Only while this replica still owns the run at the epoch it took; an ended run is nobody's.
  save: `UPDATE workflow_runs SET live = $2, json = $3,
      owner_until = CASE WHEN $2 THEN ${DB_NOW} + $6 ELSE 0 END, owner = CASE WHEN $2 THEN owner END
    WHERE id = $1 AND owner = $4 AND owner_epoch = $5`,
  epochOf: 'SELECT owner, owner_epoch FROM workflow_runs WHERE id = $1',
  // Unowned live runs, and those whose owner's hold ran out, become this replica's at the next epoch. A row
  // another transaction holds (its owner saving it, another replica taking it) is skipped. This replica's own
  // rows count too unless it holds them ($3): a claim whose reply was lost left them named here, renewed by nobody.
  claim: `UPDATE workflow_runs w SET owner = $1, owner_epoch = w.owner_epoch + 1, owner_until = ${DB_NOW} + $2
    WHERE w.id IN (SELECT id FROM workflow_runs WHERE live AND NOT (owner IS NOT DISTINCT FROM $1 AND id = ANY($3::text[]))
        AND (owner IS NULL OR owner_until <= ${DB_NOW}) ORDER BY created, id FOR UPDATE SKIP LOCKED)
    RETURNING w.json, w.owner_epoch, w.created, w.id`,
  // A run this replica took but could not start driving goes back to nobody: the next claim (any replica's) takes it.
  release: 'UPDATE workflow_runs SET owner = NULL, owner_until = 0 WHERE id = $1 AND owner = $2 AND owner_epoch = $3',
  renew: `UPDATE workflow_runs SET owner_until = ${DB_NOW} + $2 WHERE owner = $1 AND live AND id = ANY($3::text[])
    RETURNING id`,
} as const;

/** The runs this replica owns, by id → epoch; the statements that take, renew and fence them. */
export class RunLeaseBook {
  readonly #owned = new Map<string, number>();
  /** Told of each run the heartbeat found owned elsewhere: the engine stops driving its copy (runEngine.ts). */
  onLost: ((id: string) => void) | undefined;

  constructor(
    /** This process among the replicas: the owner named in the rows. */
    readonly replica: string,
    private readonly log: LeaseLog,
    /** The hold's length (ms): the conversation lease TTL. */
    private readonly leaseMs: () => number,
  ) {}

  /** Inserts a new run owned here; true when it was inserted. */
  async create(q: Query, run: WorkflowRun): Promise<boolean> {
    const params = [run.id, run.startKey, !TERMINAL_RUN.has(run.status), run.created, JSON.stringify(run)];
    const inserted = (await q(SQL.insert, [...params, this.replica, this.leaseMs()])).rowCount === 1;
    if (inserted && !TERMINAL_RUN.has(run.status)) this.#owned.set(run.id, 1);
    return inserted;
  }

  /** Saves a run this replica owns; refused (store_fenced) once another replica took it, or never owned here. */
  async save(q: Query, run: WorkflowRun): Promise<void> {
    const live = !TERMINAL_RUN.has(run.status);
    const epoch = this.#owned.get(run.id);
    const params = [run.id, live, JSON.stringify(run), this.replica, epoch ?? -1, this.leaseMs()];
    if (epoch !== undefined && (await q(SQL.save, params)).rowCount === 1) {
      if (!live) this.#owned.delete(run.id);
      return;
    }
    this.#owned.delete(run.id);
    const row = (await q(SQL.epochOf, [run.id])).rows[0] as { owner: string | null; owner_epoch: number } | undefined;
    const stored = Number(row?.owner_epoch ?? 0);
    this.log.warn('store.fenced', { run: run.id, epoch: epoch ?? null, current_epoch: stored, replica: this.replica });
    throw new DaemonError(
      'store_fenced',
      `workflow run ${run.id}: write refused: it is at epoch ${stored} (${row?.owner ?? 'no owner'}), ${this.replica} holds ${epoch ?? 'none'}`,
    );
  }

  /** Takes the live runs nobody owns live (the replica died, or none ever did): they are this replica's now. */
  async claim(q: Query): Promise<WorkflowRun[]> {
    const { rows } = await q(SQL.claim, [this.replica, this.leaseMs(), [...this.#owned.keys()]]);
    const taken = (rows as Array<{ json: string; owner_epoch: string | number; created: string; id: string }>)
      .map((row) => ({ run: JSON.parse(row.json) as WorkflowRun, epoch: Number(row.owner_epoch) }))
      .sort((a, b) => a.run.created - b.run.created || (a.run.id < b.run.id ? -1 : 1));
    for (const { run, epoch } of taken) {
      this.#owned.set(run.id, epoch);
      this.log.info(epoch > 1 ? 'lease.adopted' : 'lease.acquired', { run: run.id, epoch, replica: this.replica });
    }
    return taken.map(({ run }) => run);
  }

  /**
   * Gives back a run this replica took but failed to start driving: it is not held here any more (the heartbeat
   * stops renewing it) and its row names no owner, so the next claim takes it at the next epoch.
   */
  async release(q: Query, id: string): Promise<void> {
    const epoch = this.#owned.get(id);
    if (epoch === undefined) return;
    // Forgotten first: should the write fail, the hold runs out unrenewed and a claim takes the run all the same.
    this.#owned.delete(id);
    await q(SQL.release, [id, this.replica, epoch]);
    this.log.info('lease.released', { run: id, epoch, replica: this.replica });
  }

  /** The heartbeat: the owned runs live a hold longer; one whose row names another owner is lost here. */
  async renew(q: Query): Promise<void> {
    if (this.#owned.size === 0) return;
    const ids = [...this.#owned.keys()];
    const { rows } = await q(SQL.renew, [this.replica, this.leaseMs(), ids]);
    const still = new Set((rows as Array<{ id: string }>).map((r) => r.id));
    for (const id of ids) {
      if (still.has(id) || !this.#owned.has(id)) continue;
      this.log.info('lease.lost', { run: id, epoch: this.#owned.get(id), replica: this.replica });
      this.#owned.delete(id);
      this.onLost?.(id);
    }
  }
}
