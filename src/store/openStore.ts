// Picks and opens the configured Store implementation (config `store.kind`, `store.path`).
// The only place that chooses between them; callers hold the Store interface.
import { orderedStore } from './commitQueue.js';
import { MemoryStore } from './memoryStore.js';
import { SqliteStore } from './sqliteStore.js';
import type { Store } from './store.js';

/**
 * Opens the store `cfg` names, behind the runtime's one commit queue (commitQueue.ts). `path` is the store
 * directory for sqlite and ignored for memory.
 */
export function openStore(cfg: { kind: 'sqlite' | 'memory'; path: string }): Store {
  return orderedStore(cfg.kind === 'memory' ? new MemoryStore() : new SqliteStore(cfg.path));
}
