// The `wait` kind (producers reference §2.8, §2.11): suspends its step on a signal, another run, a subagent or a
// due time or an MCP resource's update, durably — the wait record is saved with the run, so a restart resumes the
// same wait. What ends a wait is decided here (pure); the engine applies it. `on: condition|message|webhook` are
// in waitOns.ts.
import type { StepWait, WorkflowRun } from '../../domain/workflow.js';
import { takeSignal } from '../../triggers/signalBuffer.js';
import { parseWorkflowDuration } from '../durations.js';
import { isHeld, takeHeld } from '../heldDeliveries.js';
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { DELIVERED_ON, type DeliveredOn, deliveredProblems, suspendDelivered } from './waitOns.js';

const BUILT_ON = ['signal', 'run', 'subagent', 'deadline', 'resource'] as const;
/** The field naming what each built `on` waits for. */
const TARGET: Readonly<Record<(typeof BUILT_ON)[number], string | null>> = {
  signal: 'signal',
  run: 'run',
  subagent: 'subagent',
  deadline: null,
  resource: null,
};
/** The fields `on: resource` reads (both required). */
const RESOURCE_FIELDS = ['server', 'uri'] as const;

export const WAIT_TIMED_OUT = 'wait timed out';

/** Waits that take a delivery held on the run (a signal by its name; a message or webhook hit on its channel). */
const HELD: ReadonlySet<StepWait['kind']> = new Set(['signal', 'message', 'webhook']);

const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

/** `until` as epoch milliseconds: a number of ms, or an ISO 8601 date-time. */
function untilMs(value: unknown): { ok: true; ms: number } | { ok: false; error: string } {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return { ok: true, ms: value };
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(ms)) return { ok: true, ms };
  return {
    ok: false,
    error: `wait.until must be epoch milliseconds or an ISO 8601 date-time, got ${JSON.stringify(value)}`,
  };
}

function check(fields: Readonly<Record<string, unknown>>): string[] {
  const on = fields['on'];
  const delivered = (DELIVERED_ON as readonly unknown[]).includes(on);
  if (!(BUILT_ON as readonly unknown[]).includes(on) && !delivered)
    return [`wait.on must be one of ${[...BUILT_ON, ...DELIVERED_ON].join('|')}`];
  const problems = deliveredProblems(on, fields);
  const target = delivered ? null : TARGET[on as (typeof BUILT_ON)[number]];
  for (const f of Object.values(TARGET))
    if (f !== null && f !== target && fields[f] !== undefined) problems.push(`wait.${f} applies only to on: ${f}`);
  if (target !== null && (typeof fields[target] !== 'string' || fields[target] === ''))
    problems.push(`wait on: ${on} needs ${target} (a non-empty string)`);
  for (const f of RESOURCE_FIELDS) {
    if (on !== 'resource' && fields[f] !== undefined) problems.push(`wait.${f} applies only to on: resource`);
    if (on === 'resource' && (typeof fields[f] !== 'string' || fields[f] === ''))
      problems.push(`wait on: resource needs ${f} (a non-empty string)`);
  }
  if (fields['until'] !== undefined && on !== 'deadline') problems.push('wait.until applies only to on: deadline');
  else if (fields['until'] !== undefined && !deferred(fields['until'])) {
    const until = untilMs(fields['until']);
    if (!until.ok) problems.push(until.error);
  }
  if (on === 'deadline' && fields['timeout'] === undefined && fields['until'] === undefined)
    problems.push('wait on: deadline needs a timeout or until');
  return problems;
}

function suspend(ctx: StepContext): StepResult {
  const { spec, now } = ctx;
  const on = spec['on'] as (typeof BUILT_ON)[number];
  let dueMs: number | null = null;
  if (spec['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(spec['timeout']);
    if (!timeout.ok) return failed(`wait: timeout: ${timeout.error}`);
    dueMs = now + timeout.ms;
  }
  if (spec['until'] !== undefined) {
    const until = untilMs(spec['until']);
    if (!until.ok) return failed(`wait: ${until.error}`);
    dueMs = dueMs === null ? until.ms : Math.min(dueMs, until.ms);
  }
  if ((DELIVERED_ON as readonly string[]).includes(on)) return suspendDelivered(ctx, on as DeliveredOn, dueMs);
  const target = TARGET[on];
  const named = target === null ? '' : String(spec[target] ?? '');
  if (target !== null && named === '') return failed(`wait on: ${on}: ${target} rendered empty`);
  const wait: StepWait = { kind: on, dueMs, sinceMs: now };
  if (on === 'signal') wait.signal = named;
  else if (on === 'run') wait.run = named;
  else if (on === 'subagent') wait.handle = named;
  else if (on === 'resource') {
    wait.server = String(spec['server'] ?? '');
    wait.uri = String(spec['uri'] ?? '');
    if (wait.server === '' || wait.uri === '') return failed('wait on: resource: server or uri rendered empty');
  }
  return { type: 'suspend', wait };
}

/**
 * What ends a `wait` step that is due (its signal arrived or its time came): a held signal is taken from the run
 * (the caller saves the run), `on: deadline` is done, anything else timed out. Pure but for `run.signals` / `run.held`.
 */
export function dueWaitResult(run: WorkflowRun, wait: StepWait, now: number): StepResult {
  if (wait.kind === 'deadline') return done({ waited_ms: now - (wait.sinceMs ?? now) });
  if (wait.kind === 'signal' && wait.signal !== undefined) {
    const taken = takeSignal(run.signals ?? [], wait.signal);
    if (taken.signal !== null) {
      run.signals = taken.buffer;
      const { name: signal, payload, from } = taken.signal;
      return done({ signal, payload: payload ?? null, from: from ?? null });
    }
  }
  // A message or webhook delivery is the output itself.
  const delivery =
    wait.kind !== 'signal' && HELD.has(wait.kind) && wait.signal !== undefined ? takeHeld(run, wait.signal) : null;
  if (delivery !== null) return done(delivery.payload ?? null);
  return { type: 'failed', error: WAIT_TIMED_OUT, timeout: true };
}

/** True when a suspended step's `wait on: signal|message|webhook` can take a delivery the run holds. */
export function signalHeld(run: Readonly<WorkflowRun>, wait: StepWait | null): boolean {
  if (wait === null || !HELD.has(wait.kind) || wait.signal === undefined) return false;
  return wait.kind === 'signal' ? (run.signals ?? []).some((s) => s.name === wait.signal) : isHeld(run, wait.signal);
}

export const WAIT_KIND: NodeKind = {
  name: 'wait',
  category: 'control',
  implemented: true,
  doc: "Suspends the step until what `on` names happens; the wait is saved with the run, so it survives a restart. `on: signal` (`signal` = the name): the oldest signal of that name the run holds or is sent (`workflow.signal`, with or without `run`), output `{signal, payload, from}`. `on: run` (`run` = a run id): that run ends, whatever its status, output `{run, status, output, error}`; unknown ⇒ `wait run: no such run \"<id>\"`. `on: subagent` (`subagent` = a handle): completed ⇒ done `{handle, status, result, error}`; another ending fails the step `subagent <h> <status>[: <error>]`. `on: deadline`: `timeout` (or `until`) passes, output `{waited_ms}`. `on: resource` (`server`, `uri`): subscribes to the MCP resource and ends at its next `notifications/resources/updated`, output `{uri, server, content}` (read then; JSON when it parses); after a restart it subscribes again and needs a new update. `timeout` (or `until`) passing first ⇒ status `timeout`, error `wait timed out` (retried and `on_error` as any failure). `on: condition` (`condition`, CEL): ends `{satisfied: true}` once it holds; it is re-checked as memory it names is written or deleted and as signals are sent (an error while a key or signal it names is absent means not yet); after a restart it is checked again at once. `on: message` (`conversation`): the next new A2A message on that conversation or contextId (default the run's; empty: any), taken before any `a2a` start or turn — its sender's task completes `delivered to 1 waiting workflow step`; a `message.send` / `message` step delivery to it is taken likewise — output `{conversation, message: {parts, text, message_id}, principal}`. `on: webhook` (`webhook {path?, auth?, methods?, emit_url_to?}`): opens a one-off callback route on the webhook listener (`/hooks/_cb/<step key>` unless `path`), logged `webhook.await.armed {run, path, url}`; an authenticated hit is held on the run and answered 200 `{status: resumed, resumed: 1}`, output the request `{method, path, headers, body, raw_body}`; the route closes when the step stops waiting, lives `timeout` (default 1 h), and opens again at the same path after a restart (agentd's do not survive). Message and webhook deliveries are saved with the run before they are answered.",
  fields: {
    on: { required: true, doc: 'signal | run | subagent | deadline | resource | condition | message | webhook.' },
    server: { doc: '`on: resource`: the MCP server (the `mcp:` config key).' },
    uri: { doc: '`on: resource`: the resource URI; the wait ends at its next update.' },
    signal: { doc: '`on: signal`: the signal name (templates).' },
    run: { doc: '`on: run`: the run id waited on (templates, e.g. `{{steps.spawn.output.run}}`).' },
    subagent: { doc: '`on: subagent`: the subagent handle (templates, e.g. `{{steps.sp.output.handle}}`).' },
    timeout: {
      doc: 'How long to wait (a duration); past it the step is a `timeout`. `on: deadline`: the wait itself.',
    },
    until: {
      doc: '`on: deadline` only: a wall-clock end, epoch ms or ISO 8601 (with `timeout` too, the earlier counts). Beyond agentd.',
    },
    condition: {
      raw: true,
      doc: '`on: condition`: a CEL predicate over `memory.<key>` (each key named so), `signals.<name>` (`{payload, ts, from}`: the last signal of that name this process delivered), `inputs` and `now_ms`; re-checked whenever a named memory key is written or deleted, a signal is sent, and every second when it reads `now_ms`.',
    },
    conversation: {
      doc: "`on: message`: the conversation id or A2A contextId a message must arrive on (default the run's conversation — a run with none fails the step; empty: any).",
    },
    webhook: {
      doc: "`on: webhook`: `{path?, auth?, methods?, emit_url_to?}` — the callback path (default `/hooks/_cb/<step key>`), its auth (as a webhook start node's; default none), methods (default POST), and a variable that gets `{path, url}`.",
    },
  },
  check,
  run: suspend,
};
