// Every SQL statement the PostgreSQL store runs (positional parameters). Statements only; rows map to Store data
// through sqliteRows.ts's mappers, whose row shapes these columns return.

/** A stored subagent record's subtree spend (0 when absent). */
const TREE = (json: string) => `COALESCE((${json}::jsonb ->> 'tree_tokens')::bigint, 0)`;
const INBOX_COLUMNS = 'id, kind, ts, principal, payload, dedupe_key, status, outcome';
const CONVERSATION_COLUMNS =
  'id, kind, version, summary, plan, principal, turns, created, updated, message_count, skills, revision';
const TASK_FILTER = `($1::text IS NULL OR principal = $1) AND ($2::text IS NULL OR context_id = $2)
  AND ($3::text IS NULL OR state = $3)`;

const TERMINAL_STATES = `('completed', 'failed', 'canceled', 'rejected')`;

export const SQL = {
  insertInbox: `INSERT INTO inbox (${INBOX_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, 'pending', NULL)
    ON CONFLICT DO NOTHING`,
  inboxById: `SELECT ${INBOX_COLUMNS} FROM inbox WHERE id = $1`,
  conversationOfEvent: 'SELECT conversation FROM inbox WHERE id = $1',
  inboxByDedupe: `SELECT ${INBOX_COLUMNS} FROM inbox WHERE dedupe_key = $1`,
  markInboxDone: `UPDATE inbox SET status = 'done', outcome = coalesce($2, outcome), owner = NULL, lease_until = NULL
    WHERE id = $1`,

  conversations: `SELECT ${CONVERSATION_COLUMNS} FROM conversations ORDER BY id`,
  conversationById: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`,
  allMessages: 'SELECT conversation_id, json FROM messages ORDER BY conversation_id, idx',
  messagesOf: 'SELECT json FROM messages WHERE conversation_id = $1 ORDER BY idx',
  allControls: 'SELECT id, json FROM conversation_controls',
  controlsOf: 'SELECT json FROM conversation_controls WHERE id = $1',
  conversationHeads: `SELECT c.id, c.principal, c.revision,
      coalesce((SELECT sum(octet_length(m.json)) FROM messages m WHERE m.conversation_id = c.id), 0)::bigint AS bytes,
      coalesce((cc.json::jsonb -> 'goal' ->> 'status') = 'active', false) AS active_goal
    FROM conversations c LEFT JOIN conversation_controls cc ON cc.id = c.id ORDER BY c.id`,
  // Locks the row so a concurrent commit of the same conversation (another replica) waits, then sees the revision.
  storedTranscript: 'SELECT version, message_count AS count, revision FROM conversations WHERE id = $1 FOR UPDATE',
  upsertConversation: `INSERT INTO conversations (${CONVERSATION_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, version = excluded.version, summary = excluded.summary,
      plan = excluded.plan, principal = excluded.principal, turns = excluded.turns, created = excluded.created,
      updated = excluded.updated, message_count = excluded.message_count, skills = excluded.skills,
      revision = excluded.revision
    WHERE conversations.revision = $12 - 1`,
  deleteMessages: 'DELETE FROM messages WHERE conversation_id = $1',
  insertMessages: `INSERT INTO messages (conversation_id, idx, json)
    SELECT $1, idx, json FROM unnest($2::int[], $3::text[]) AS m (idx, json)`,
  saveControls: `INSERT INTO conversation_controls (id, json) VALUES ($1, $2)
    ON CONFLICT (id) DO UPDATE SET json = excluded.json`,

  memoryGet: 'SELECT key, value, expires, updated FROM memory WHERE key = $1',
  memorySet: `INSERT INTO memory (key, value, expires, updated) VALUES ($1, $2, $3, $4)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, updated = excluded.updated`,
  memoryDelete: 'DELETE FROM memory WHERE key = $1',
  memoryDeleteExpired: 'DELETE FROM memory WHERE key = $1 AND expires IS NOT NULL AND expires < $2',
  memoryKeysFrom: 'SELECT key, expires FROM memory WHERE key >= $1 ORDER BY key',

  // A terminal task is never overwritten (writeRules.ts keepsTask): the first end wins.
  saveTask: `INSERT INTO tasks (id, context_id, conversation, state, principal, inbox_event, updated, json)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, conversation = excluded.conversation,
      state = excluded.state, principal = excluded.principal, inbox_event = excluded.inbox_event,
      updated = excluded.updated, json = excluded.json
    WHERE tasks.state NOT IN ('completed', 'failed', 'canceled', 'rejected')`,
  // A client's answer: over the task only as it was read (its state, `updated` and open question), so nothing
  // newer is lost: a question asked again in the same millisecond (or under clock skew) has another id.
  answerTask: `UPDATE tasks SET state = $2, inbox_event = $3, updated = $4, json = $5
    WHERE id = $1 AND state = $6 AND updated = $7 AND (json::jsonb -> 'question' ->> 'id') IS NOT DISTINCT FROM $8`,
  taskById: 'SELECT json FROM tasks WHERE id = $1',
  // The order must match taskQuery.ts's compareListing.
  listTasks: `SELECT json FROM tasks WHERE ${TASK_FILTER} AND ($4::text IS NULL OR id < $4)
    ORDER BY id DESC LIMIT $5`,
  countTasks: `SELECT count(*) AS n FROM tasks WHERE ${TASK_FILTER}`,
  taskForEvent: 'SELECT json FROM tasks WHERE inbox_event = $1 ORDER BY updated DESC, id DESC LIMIT 1',
  latestTurnTask: 'SELECT json FROM tasks WHERE principal = $1 AND inbox_event IS NOT NULL ORDER BY id DESC LIMIT 1',

  nextSequence: `INSERT INTO sequences (name, value) VALUES ($1, $2)
    ON CONFLICT (name) DO UPDATE SET value = sequences.value + excluded.value RETURNING value`,

  // A whole record never lowers the stored subtree spend: other replicas' charges were added to it in place.
  saveSubagent: `INSERT INTO subagents (handle, created, json) VALUES ($1, $2, $3)
    ON CONFLICT (handle) DO UPDATE SET json = CASE WHEN subagents.json::jsonb ? 'tree_tokens'
      THEN jsonb_set(excluded.json::jsonb, '{tree_tokens}', to_jsonb(GREATEST(${TREE('subagents.json')},
        ${TREE('excluded.json')})))::text
      ELSE excluded.json END`,
  // A charge's spender: its record, with the charge added to the stored subtree spend.
  chargeSubagent: `INSERT INTO subagents (handle, created, json) VALUES ($1, $2, $3)
    ON CONFLICT (handle) DO UPDATE SET
      json = jsonb_set(excluded.json::jsonb, '{tree_tokens}', to_jsonb(${TREE('subagents.json')} + $4::bigint))::text`,
  // A caller above the spender: only its subtree spend grows, atomically.
  addTreeTokens: `UPDATE subagents SET json = jsonb_set(json::jsonb, '{tree_tokens}',
      to_jsonb(${TREE('subagents.json')} + $2::bigint))::text WHERE handle = $1`,
  allSubagents: 'SELECT json FROM subagents ORDER BY created, handle',
  deleteSubagents: 'DELETE FROM subagents WHERE handle = ANY($1::text[])',
  deleteSubagentResults: 'DELETE FROM subagent_results WHERE handle = ANY($1::text[])',
  saveSubagentResult: `INSERT INTO subagent_results (handle, run, body) VALUES ($1, $2, $3)
    ON CONFLICT (handle) DO UPDATE SET run = excluded.run, body = excluded.body`,
  subagentResult: 'SELECT run, body FROM subagent_results WHERE handle = $1',
  noteSpawn: `INSERT INTO subagent_spawns (handle, at) VALUES ($1, $2)
    ON CONFLICT (handle) DO UPDATE SET at = excluded.at`,
  forgetSpawns: 'DELETE FROM subagent_spawns WHERE at < $1',
  spawnsSince: 'SELECT handle, at FROM subagent_spawns WHERE at >= $1 ORDER BY handle',
  pruneTasks: `DELETE FROM tasks WHERE state IN ${TERMINAL_STATES} AND (updated < $2 OR id IN (
      SELECT id FROM tasks WHERE state IN ${TERMINAL_STATES} ORDER BY updated DESC, id DESC OFFSET $1))`,

  runByIdOrKey: 'SELECT json FROM workflow_runs WHERE id = $1 OR start_key = $2 LIMIT 1',
  runById: 'SELECT json FROM workflow_runs WHERE id = $1',
  allRuns: 'SELECT json FROM workflow_runs ORDER BY created, id',
  liveRuns: 'SELECT json FROM workflow_runs WHERE live ORDER BY created, id',
  deleteRuns: 'DELETE FROM workflow_runs WHERE id = ANY($1::text[]) AND NOT live',
  saveDefinition: `INSERT INTO workflow_definitions (name, version, created, json) VALUES ($1, $2, $3, $4)
    ON CONFLICT (name, version) DO UPDATE SET created = excluded.created, json = excluded.json`,
  newestDefinitions: `SELECT DISTINCT ON (name) json FROM workflow_definitions ORDER BY name, version DESC`,

  armTimer: `INSERT INTO timers (id, owner, kind, due, payload) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, kind = excluded.kind, due = excluded.due,
      payload = excluded.payload`,
  allTimers: 'SELECT id, owner, kind, due, payload FROM timers ORDER BY due, id',
  dropTimer: 'DELETE FROM timers WHERE id = $1',
  dropOwnerTimers: 'DELETE FROM timers WHERE owner = $1',
  seenKey: 'SELECT 1 FROM fired_keys WHERE key = $1',
  rememberKey: 'INSERT INTO fired_keys (key, at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
  forgetKeys: 'DELETE FROM fired_keys WHERE left(key, length($1)) = $1 AND at < $2',

  // Appends from every replica take this lock in their transaction, so seq order is commit order: a reader's
  // cursor never passes a seq that commits later.
  lockFeed: 'SELECT pg_advisory_xact_lock(7305020)',
  appendFeed: `INSERT INTO feed (ts, kind, audience, data)
    SELECT ts, kind, audience, data
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS e (ts, kind, audience, data, n)
    ORDER BY n RETURNING seq, ts, kind, audience, data`,
  feedAfter: 'SELECT seq, ts, kind, audience, data FROM feed WHERE seq > $1 ORDER BY seq LIMIT $2',
  feedBounds: `SELECT (SELECT min(seq) FROM feed) AS oldest,
      (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM feed_seq_seq) AS newest`,
  pruneFeed: `DELETE FROM feed WHERE ts < $2
    OR seq <= (SELECT seq FROM feed ORDER BY seq DESC LIMIT 1 OFFSET $1)`,
} as const;
