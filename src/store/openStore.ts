// Picks and opens the configured Store implementation (config `store.kind`, `store.path`).
// The only place that chooses between them; callers hold the Store interface.
import { orderedStore } from './commitQueue.js';
import { MemoryStore } from './memoryStore.js';
import type { IntegrityCheck } from './sqliteCheck.js';
import { SqliteStore } from './sqliteStore.js';
import type { Store } from './store.js';

/**
 * Opens the store `cfg` names, behind the runtime's one commit queue (commitQueue.ts). `path` is the store
 * directory for sqlite and ignored for memory; `integrity_check` runs on an existing sqlite file before any write.
 */
export function openStore(cfg: { kind: 'sqlite' | 'memory'; path: string; integrity_check?: IntegrityCheck }): Store {
  if (cfg.kind === 'memory') return orderedStore(new MemoryStore());
  return orderedStore(new SqliteStore(cfg.path, cfg.integrity_check ? { integrityCheck: cfg.integrity_check } : {}));
}
