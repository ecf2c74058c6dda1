// The key table's rows for what the A2A surface keeps for its clients: the client feed and terminal tasks (issue 18).
import { A2A_DEFAULTS } from './a2aKeys.js';
import { durationKind, intKind } from './kinds.js';
import type { KeyTable } from './schema.js';

type RetentionKey = 'a2a.feed.retain_events' | 'a2a.feed.retain_age' | 'a2a.tasks.retain' | 'a2a.tasks.retain_age';

export const RETENTION_KEYS: Pick<KeyTable, RetentionKey> = {
  'a2a.feed.retain_events': {
    kind: intKind(1),
    default: A2A_DEFAULTS.feed_retain_events,
    doc: 'Client feed events kept (GET /feed); a client whose cursor fell out is told to reload.',
  },
  'a2a.feed.retain_age': {
    kind: durationKind(1_000),
    default: A2A_DEFAULTS.feed_retain_age,
    doc: 'Client feed events older than this are dropped.',
  },
  'a2a.tasks.retain': {
    kind: intKind(0),
    default: A2A_DEFAULTS.tasks_retain,
    doc: 'Terminal A2A tasks kept (newest first); running tasks are never dropped.',
  },
  'a2a.tasks.retain_age': {
    kind: durationKind(1_000),
    default: A2A_DEFAULTS.tasks_retain_age,
    doc: 'Terminal A2A tasks last updated longer ago than this are dropped.',
  },
};
