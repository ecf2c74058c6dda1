// The key table's rows for the store section (sqlite default, memory, postgres for replicas).
import { byteSizeKind } from './byteSize.js';
import { durationKind, enumKind, intKind, nullableStringKind, stringKind } from './kinds.js';
import type { KeyTable } from './schema.js';

/** The default of store.path when $AGENTD_STATE_DIR is unset; compileConfig resolves it against cwd. */
export const DEFAULT_STORE_PATH = './.agentd';

type StoreKey =
  | 'store.kind'
  | 'store.url'
  | 'store.pool_size'
  | 'store.lease_ttl'
  | 'store.journal_retain'
  | 'store.path'
  | 'store.conversation_cache.entries'
  | 'store.conversation_cache.bytes'
  | 'store.min_free'
  | 'store.integrity_check';

export const STORE_KEYS: Pick<KeyTable, StoreKey> = {
  'store.kind': {
    kind: enumKind(['sqlite', 'memory', 'postgres']),
    default: 'sqlite',
    doc: 'Store backend; a one-shot job that names no store (store.*, AGENTD_STATE_DIR, --state-dir) uses memory.',
  },
  'store.url': {
    kind: nullableStringKind(),
    default: null,
    doc: 'postgres: the database URL (postgres://user:pass@host:5432/db); use {{secret:PG_URL}}.',
    sensitive: true,
  },
  'store.pool_size': { kind: intKind(1), default: 10, doc: 'postgres: connections in the pool at most.' },
  'store.lease_ttl': {
    kind: durationKind(1_000),
    default: 15_000,
    doc: "postgres: a conversation lease's life; renewed every third of it, adopted by another replica once expired.",
  },
  'store.journal_retain': {
    kind: durationKind(1_000),
    default: 604_800_000,
    doc: 'Tool journal entries of finished turns older than this are pruned (every store kind; hourly).',
  },
  'store.path': { kind: stringKind(), default: DEFAULT_STORE_PATH, doc: 'State directory; default $AGENTD_STATE_DIR.' },
  'store.conversation_cache.entries': {
    kind: intKind(1),
    default: 500,
    doc: 'Conversations kept in memory at most; idle ones past it are evicted (least recently used first).',
  },
  'store.conversation_cache.bytes': {
    kind: intKind(1),
    default: 67_108_864,
    doc: "Bytes of conversations' messages kept in memory at most; idle ones past it are evicted.",
  },
  'store.min_free': {
    kind: byteSizeKind(),
    default: 256_000_000,
    doc: "Free space under which the store's filesystem sheds (no turn starts; warn under twice it); 0 = off.",
  },
  'store.integrity_check': {
    kind: enumKind(['quick', 'full', 'off']),
    default: 'quick',
    doc: 'Check of an existing sqlite store at open, before any write: quick_check, integrity_check, or none.',
  },
};
