// Picks and opens the configured Store implementation (config `store.kind`, `store.path`, `store.url`).
// The only place that chooses between them; callers hold the Store interface. The PostgreSQL store (and `pg`)
// loads only when the config names it.
import { DaemonError } from '../errors.js';
import { orderedStore } from './commitQueue.js';
import { MemoryStore } from './memoryStore.js';
import type { LeaseLog } from './postgresLeases.js';
import type { IntegrityCheck } from './sqliteCheck.js';
import { SqliteStore } from './sqliteStore.js';
import type { Store } from './store.js';

/** The store section as the openers read it. */
export interface StoreChoice {
  kind: 'sqlite' | 'memory' | 'postgres';
  path: string;
  integrity_check?: IntegrityCheck;
  url?: string | null;
  pool_size?: number;
  /** Replicas: the lease TTL (ms), also how long a session may sit idle inside a transaction. */
  lease_ttl?: number;
}

/**
 * Opens the store `cfg` names, behind the runtime's one commit queue (commitQueue.ts). `path` is the store
 * directory for sqlite and ignored for memory; `integrity_check` runs on an existing sqlite file before any write.
 * A networked store (postgres) opens with `connectStore`.
 */
export function openStore(cfg: StoreChoice): Store {
  if (cfg.kind === 'memory') return orderedStore(new MemoryStore());
  if (cfg.kind === 'postgres') {
    throw new DaemonError('internal', 'store.kind postgres opens asynchronously: use connectStore');
  }
  return orderedStore(new SqliteStore(cfg.path, cfg.integrity_check ? { integrityCheck: cfg.integrity_check } : {}));
}

/**
 * Opens any store, behind the commit queue: postgres connects and migrates first (store_unreachable when the
 * database does not answer, naming its host); the others as `openStore`. `log` hears the replica's lease events.
 */
export async function connectStore(cfg: StoreChoice, log?: LeaseLog): Promise<Store> {
  if (cfg.kind !== 'postgres') return openStore(cfg);
  if (!cfg.url) throw new DaemonError('config_invalid', 'store.kind postgres needs store.url');
  const opts = {
    url: cfg.url,
    poolSize: cfg.pool_size ?? 10,
    ...(cfg.lease_ttl ? { idleInTransactionMs: cfg.lease_ttl } : {}),
  };
  const { PostgresStore } = await import('./postgresStore.js');
  return orderedStore(await PostgresStore.open(log ? { ...opts, log } : opts));
}
