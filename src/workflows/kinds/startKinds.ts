// Start nodes (producers reference §2.4, §3.2-3.7): `once` fires at boot, `manual` only on request, `schedule` and
// `webhook` when their trigger fires. A start node is never executed; firing it creates the run with the node `done`
// and the payload as its output.
import type { NodeKind } from '../nodeKind.js';
import {
  a2aProblems,
  eventProblems,
  loopProblems,
  principalProblems,
  scheduleProblems,
  subscribeProblems,
  webhookProblems,
} from '../startFields.js';

/** Who a recurring start's runs act for (producers reference §3.9; issue 17 item 4). */
const PRINCIPAL_FIELD = {
  doc: "The principal its runs act for and are accounted to (`user:<id>`, `agent:<id>`); default nobody, i.e. the operator's reach. A webhook with `auth: {a2a: true}` acts for its caller instead.",
};

export const START_KINDS: readonly NodeKind[] = [
  {
    name: 'once',
    category: 'start',
    implemented: true,
    doc: 'Fires once per store when the daemon starts (a second life skips it: `start.once.skipped`).',
    fields: {
      policy: { doc: 'Reserved: only the default (once per store) is built.' },
      inputs: { doc: "The run's inputs (templates over `env`)." },
    },
    check: (fields) => (fields['policy'] === undefined ? [] : ['once.policy is not implemented in this build']),
  },
  {
    name: 'manual',
    category: 'start',
    implemented: true,
    doc: 'Fires only when asked: the `workflow.run` tool or A2A command, or a `workflow` step.',
    fields: { inputs: { doc: "Default inputs, overridden by the caller's." } },
  },
  {
    name: 'schedule',
    category: 'start',
    implemented: true,
    doc: 'Fires on a cron (with an IANA `tz`), an `every` interval or once `at` a wall-clock time; occurrences are durable timers, so a restart keeps them, and `catch_up` decides what an outage missed. Payload `{scheduled_for}`.',
    fields: {
      cron: { doc: 'Five-field cron, read in `tz`.' },
      every: { doc: 'An interval (e.g. `2s`, `1h`) on a grid from first arming.' },
      at: { doc: 'A wall-clock date and time (`2026-03-29T02:30`, read in `tz`): fires once.' },
      tz: { doc: 'IANA time zone (default UTC).' },
      jitter: { doc: 'A bounded, deterministic delay added to each occurrence.' },
      catch_up: { doc: 'none | one (default) | all: occurrences missed while down.' },
      overlap: { doc: 'skip | queue (default) | cancel_previous: a firing while its last run is live.' },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: (fields) => [...scheduleProblems(fields), ...principalProblems(fields)],
  },
  {
    name: 'webhook',
    category: 'start',
    implemented: true,
    doc: 'Fires on an authenticated HTTP request to `path` on the A2A listener; payload `{method, path, headers, body, raw_body}`. A redelivered idempotency key starts nothing new.',
    fields: {
      path: { required: true, doc: 'The route, e.g. `/hooks/ci`.' },
      methods: { doc: 'Accepted methods (default `[POST]`).' },
      auth: {
        doc: '`{none: true}` | `{bearer}` | `{header: {name, equals}}` | `{hmac: {secret, header, prefix}}`; `{{secret:NAME}}` reads the environment.',
      },
      rate: { doc: '`<n>/<duration>`: deliveries beyond it are answered 429.' },
      parallelism: { doc: 'Deliveries started at once.' },
      on_overflow: { doc: 'reject (503, default) | drop (200 dropped) | queue.' },
      idempotency: { doc: 'Header name (default `Idempotency-Key`), `{field: <body path>}`, or false.' },
      respond: { doc: "ack (202 once accepted, default) | sync (the run's `{status, output, error}`)." },
      filter: { raw: true, doc: 'CEL over `{payload}`: false answers 200 filtered and starts nothing.' },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: (fields) => [...webhookProblems(fields), ...principalProblems(fields)],
  },
  {
    name: 'loop',
    category: 'start',
    implemented: true,
    doc: 'Fires when armed (after `delay`), then `interval` after each of its runs ends, never overlapping itself, until `until` holds or `max_iterations` ran. Iterations are counted from the stored runs, so a restart keeps the count and the interval. Payload `{iteration}`.',
    fields: {
      interval: { doc: 'Wait after a run ends before the next (default 0).' },
      delay: { doc: 'Wait before the first iteration.' },
      until: {
        raw: true,
        doc: 'CEL over `{outcome: {ok, output}, last}`: true stops the loop (an error counts as false).',
      },
      max_iterations: { doc: 'At most this many iterations (default and cap 10000).' },
      backoff: {
        doc: '`{initial, factor?, max?}`: the wait after a failed iteration (default the interval), times `factor` (default 1) for each earlier failure in a row, at most `max`.',
      },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: (fields) => [...loopProblems(fields), ...principalProblems(fields)],
  },
  {
    name: 'event',
    category: 'start',
    implemented: true,
    doc: "Fires when another workflow's run ends: `workflow.finished` (completed) or `workflow.failed` (failed, stalled, cancelled, refused), or a conversation's turn ends: `turn.finished` (completed) or `turn.failed`; either spelling (`workflow_finished`) works. A workflow's own runs never fire it, nor do the turns of workflow steps. Payload `{event, payload: {run, workflow, status}}`, for a turn `{event, payload: {conversation, inbox_event, kind, principal, status, error?}}`.",
    fields: {
      on: { required: true, doc: 'workflow.finished | workflow.failed | turn.finished | turn.failed.' },
      filter: { raw: true, doc: 'CEL over `{payload}`: false starts nothing.' },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: (fields) => [...eventProblems(fields), ...principalProblems(fields)],
  },
  {
    name: 'signal',
    category: 'start',
    implemented: true,
    doc: 'Fires on a named signal (`workflow.signal`) whose payload passes `filter`; `workflow.signal` reports how many runs it started. Payload `{signal, payload}`.',
    fields: {
      name: { required: true, doc: 'The signal name.' },
      filter: { raw: true, doc: 'CEL over `{payload}`: false starts nothing.' },
      deliver: { doc: 'Reserved: refused in this build.' },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: (fields) => [
      ...(fields['deliver'] === undefined ? [] : ['deliver: not implemented in this build']),
      ...principalProblems(fields),
    ],
  },
  {
    name: 'a2a',
    category: 'start',
    implemented: true,
    doc: 'Fires on a new A2A message instead of a turn: with `command`, a message whose command data part `{"agentd": {"op": …}}` has that op; without, a plain message. The first matching start (workflows by name, nodes by id) takes it; the run acts for the caller in its conversation, and the caller\'s task follows the run. Payload `{conversation, principal, role, command, args, parts, text, message_id}`.',
    fields: {
      command: { doc: 'The command op it takes; none: plain messages (operator commands stay commands).' },
      roles: { doc: 'Caller roles it takes (`operator`, `user`, `agent`); none: any.' },
      inputs: { doc: "The run's inputs." },
    },
    check: a2aProblems,
  },
  {
    name: 'subscribe',
    category: 'start',
    implemented: true,
    doc: 'Fires when the MCP resource `uri` of `server` is updated (`resources/subscribe`, `notifications/resources/updated`) and `filter` passes; with `debounce_ms`, the updates of one window fire once, with the newest content (the open window is stored: a restart inside it fires it once, at its time). Resubscribes when the server comes back after a restart. Payload `{server, uri, content, window?}` (JSON when the text parses, else text; null when the read failed).',
    fields: {
      server: { required: true, doc: 'A server of `mcp.servers`.' },
      uri: { required: true, doc: 'The resource URI.' },
      debounce_ms: {
        doc: 'The window after the first update in which later ones only replace the content (0: each fires).',
      },
      filter: { raw: true, doc: 'CEL over `{content}`: false starts nothing.' },
      window: {
        doc: '`{samples: N}` (1-100): the payload also carries `window`, the newest N contents that passed the filter (oldest first), kept durably, also those of firings that were coalesced or debounced.',
      },
      coalesce: {
        doc: '`true`: while a run this node started is live, a firing starts no second run; the newest is held (durably) and fires once that run ends. Default false.',
      },
      deliver: {
        doc: "`start` (default): a firing starts a run. `signal`: it is a signal named the node's `uri`, payload the firing's, held by every live run of the workflow (a `wait {on: signal}` takes it).",
      },
      on_no_listener: {
        doc: 'With `deliver: signal` and no live run of the workflow: `start` (default) starts one with the firing; `drop` drops it (`start.subscribe.dropped`).',
      },
      inputs: { doc: "The run's inputs." },
      principal: PRINCIPAL_FIELD,
    },
    check: subscribeProblems,
  },
];
