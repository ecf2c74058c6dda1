// The fields of `schedule` and `webhook` start nodes (producers reference §3.4, §3.7): checked at load (a problem
// names the field; the parser prefixes workflow and step) and turned into the triggers' own shapes. Pure.

import { parseRate } from '../config/subagentKeys.js';
import { compileCel, evalPredicate } from '../expr/cel.js';
import type { LoopSpec } from '../triggers/loopPolicy.js';
import { type ScheduleFields, validateSchedule } from '../triggers/schedule.js';
import { subscribeOptionProblems } from '../triggers/subscribePolicy.js';
import type { WebhookAuth, WebhookPayload, WebhookRoute } from '../triggers/webhookPolicy.js';
import { parseWorkflowDuration } from './durations.js';

/** The reference's cap on a loop's iterations (§2.13). */
export const MAX_LOOP_ITERATIONS = 10_000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A schedule node's fields as the schedule policy reads them. */
export function scheduleOf(fields: Readonly<Record<string, unknown>>): ScheduleFields {
  const out: Record<string, unknown> = {};
  for (const key of ['cron', 'every', 'at', 'tz', 'jitter', 'catch_up', 'overlap'])
    if (fields[key] !== undefined) out[key] = fields[key];
  return out as ScheduleFields;
}

/** Load problems of a schedule node: a bad cron, zone, duration or policy names its field. */
export function scheduleProblems(fields: Readonly<Record<string, unknown>>): string[] {
  return validateSchedule(scheduleOf(fields), 'schedule').map((p) => p.replace(/^schedule\./, ''));
}

const AUTH_SHAPES =
  'auth: must be one of {none: true}, {bearer}, {header: {name, equals}}, {hmac: {secret, header, prefix}}, {a2a: true}';

/** Load problems of a webhook `auth` (a start node's, or a `wait on: webhook` callback's). */
export function authProblems(auth: unknown): string[] {
  if (auth === undefined) return [];
  if (!isObject(auth) || Object.keys(auth).length !== 1) return [AUTH_SHAPES];
  if (auth['none'] === true || auth['a2a'] === true || typeof auth['bearer'] === 'string') return [];
  const header = auth['header'];
  if (isObject(header) && typeof header['name'] === 'string' && typeof header['equals'] === 'string') return [];
  const hmac = auth['hmac'];
  if (isObject(hmac) && typeof hmac['secret'] === 'string') return [];
  return [AUTH_SHAPES];
}

/** Load problems of a start's `principal` (who its runs act for, producers reference §3.9). */
export function principalProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const principal = fields['principal'];
  if (principal === undefined || (typeof principal === 'string' && /^\S+$/.test(principal))) return [];
  return ['principal: must be a principal id, e.g. user:alice or agent:ci'];
}

/** Who a start's runs act for: its `principal`, else nobody (null: the operator's reach, reference §3.9). */
export function principalOf(fields: Readonly<Record<string, unknown>>): string | null {
  return typeof fields['principal'] === 'string' ? fields['principal'] : null;
}

/** Load problems of a webhook node. */
export function webhookProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const path = fields['path'];
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('?'))
    problems.push('path: must be a string starting with /');
  const methods = fields['methods'];
  if (methods !== undefined && (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string')))
    problems.push('methods: must be a list of HTTP methods');
  problems.push(...authProblems(fields['auth']));
  if (fields['rate'] !== undefined && parseRate(String(fields['rate'])) === null)
    problems.push('rate: must be <count>/<duration>, e.g. 10/1m');
  const parallelism = fields['parallelism'];
  if (parallelism !== undefined && !(Number.isInteger(parallelism) && (parallelism as number) > 0))
    problems.push('parallelism: must be a positive integer');
  if (fields['on_overflow'] !== undefined && !['reject', 'drop', 'queue'].includes(String(fields['on_overflow'])))
    problems.push('on_overflow: must be reject, drop or queue');
  if (fields['respond'] !== undefined && !['ack', 'sync'].includes(String(fields['respond'])))
    problems.push('respond: must be ack or sync');
  const idem = fields['idempotency'];
  if (
    idem !== undefined &&
    idem !== false &&
    typeof idem !== 'string' &&
    !(isObject(idem) && (typeof idem['field'] === 'string' || typeof idem['header'] === 'string'))
  )
    problems.push('idempotency: must be a header name, {field: <body path>} or false');
  return problems;
}

/**
 * The route a webhook node registers (fields already checked at load). `secret` resolves `{{secret:NAME}}` in
 * the auth values; the trigger id is `<workflow>.<node>`.
 */
export function routeOf(
  workflow: string,
  node: string,
  fields: Readonly<Record<string, unknown>>,
  secret: (text: string) => string,
): WebhookRoute {
  const route: WebhookRoute = {
    id: `${workflow}.${node}`,
    workflow,
    path: String(fields['path']),
    auth: authOf(fields['auth'], secret),
  };
  if (Array.isArray(fields['methods'])) route.methods = (fields['methods'] as string[]).map((m) => m.toUpperCase());
  const rate = fields['rate'] === undefined ? null : parseRate(String(fields['rate']));
  if (rate) route.rate = { burst: rate.burst, per_ms: rate.periodMs };
  if (typeof fields['parallelism'] === 'number') route.parallelism = fields['parallelism'];
  if (fields['on_overflow'] !== undefined) route.on_overflow = fields['on_overflow'] as 'reject' | 'drop' | 'queue';
  if (fields['respond'] !== undefined) route.respond = fields['respond'] as 'ack' | 'sync';
  const idem = fields['idempotency'];
  if (idem === false) route.idempotency = false;
  else if (typeof idem === 'string') route.idempotency = { header: idem };
  else if (isObject(idem))
    route.idempotency =
      typeof idem['field'] === 'string' ? { field: idem['field'] } : { header: String(idem['header']) };
  if (typeof fields['filter'] === 'string') route.filter = filterOf(fields['filter']);
  return route;
}

/** A checked `auth` as the webhook routes read it, `{{secret:…}}` resolved by `secret`. */
export function authOf(auth: unknown, secret: (text: string) => string): WebhookAuth {
  if (!isObject(auth) || auth['none'] === true) return { none: true };
  if (auth['a2a'] === true) return { a2a: true };
  if (typeof auth['bearer'] === 'string') return { bearer: secret(auth['bearer']) };
  const header = auth['header'];
  if (isObject(header)) return { header: { name: String(header['name']), equals: secret(String(header['equals'])) } };
  const hmac = auth['hmac'] as Record<string, unknown>;
  const out: { secret: string; header?: string; prefix?: string } = { secret: secret(String(hmac['secret'])) };
  if (typeof hmac['header'] === 'string') out.header = hmac['header'];
  if (typeof hmac['prefix'] === 'string') out.prefix = hmac['prefix'];
  return { hmac: out };
}

/** A CEL filter over `{payload}`; an error counts as false (reference §3.7). */
function filterOf(source: string): (payload: WebhookPayload) => boolean {
  return (payload) => celHolds(source, { payload });
}

/** A loop node's durations and bounds (fields checked at load). */
export function loopSpecOf(fields: Readonly<Record<string, unknown>>): LoopSpec {
  const ms = (v: unknown): number | null => {
    if (v === undefined) return null;
    const parsed = parseWorkflowDuration(v);
    return parsed.ok ? parsed.ms : null;
  };
  const backoff = isObject(fields['backoff']) ? fields['backoff'] : {};
  const max = fields['max_iterations'];
  return {
    intervalMs: ms(fields['interval']) ?? 0,
    delayMs: ms(fields['delay']) ?? 0,
    maxIterations: typeof max === 'number' ? max : MAX_LOOP_ITERATIONS,
    backoffMs: ms(backoff['initial']),
    backoffFactor: typeof backoff['factor'] === 'number' ? backoff['factor'] : 1,
    backoffMaxMs: ms(backoff['max']),
  };
}

/** Load problems of a loop node. */
export function loopProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const key of ['interval', 'delay'])
    if (fields[key] !== undefined) {
      const parsed = parseWorkflowDuration(fields[key]);
      if (!parsed.ok) problems.push(`${key}: ${parsed.error}`);
    }
  const max = fields['max_iterations'];
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= MAX_LOOP_ITERATIONS))
    problems.push(`max_iterations: must be an integer from 1 to ${MAX_LOOP_ITERATIONS}`);
  const backoff = fields['backoff'];
  if (backoff !== undefined) problems.push(...backoffProblems(backoff));
  return problems;
}

/** Load problems of a loop's `backoff` (`{initial, factor?, max?}`). */
function backoffProblems(backoff: unknown): string[] {
  if (!isObject(backoff) || !parseWorkflowDuration(backoff['initial']).ok)
    return ['backoff: must be {initial: <duration>, factor?: <number ≥ 1>, max?: <duration>}'];
  const problems: string[] = [];
  const factor = backoff['factor'];
  if (factor !== undefined && !(typeof factor === 'number' && Number.isFinite(factor) && factor >= 1))
    problems.push('backoff.factor: must be a number, 1 or more');
  if (backoff['max'] !== undefined) {
    const max = parseWorkflowDuration(backoff['max']);
    if (!max.ok) problems.push(`backoff.max: ${max.error}`);
  }
  return problems;
}

/** Load problems of a subscribe node. */
export function subscribeProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const key of ['server', 'uri'])
    if (typeof fields[key] !== 'string' || fields[key] === '') problems.push(`${key}: must be a non-empty string`);
  const debounce = fields['debounce_ms'];
  if (debounce !== undefined && !(Number.isInteger(debounce) && (debounce as number) >= 0))
    problems.push('debounce_ms: must be a whole number of milliseconds, 0 or more');
  return [...problems, ...subscribeOptionProblems(fields), ...principalProblems(fields)];
}

const A2A_ROLES = ['operator', 'user', 'agent'];

/** Load problems of an a2a node. */
export function a2aProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const command = fields['command'];
  if (command !== undefined && !(typeof command === 'string' && /^\S+$/.test(command)))
    problems.push('command: must be a command op, e.g. deploy');
  const roles = fields['roles'];
  if (roles !== undefined && !(Array.isArray(roles) && roles.every((r) => A2A_ROLES.includes(String(r)))))
    problems.push(`roles: must be a list of ${A2A_ROLES.join(', ')}`);
  return problems;
}

/** The workflow and turn lifecycle events an `event` start may name, each in both spellings (reference §3.7, §5 item 20). */
export type StartEvent = 'workflow.finished' | 'workflow.failed' | 'turn.finished' | 'turn.failed';
export const RUN_EVENTS: Readonly<Record<string, StartEvent>> = {
  'workflow.finished': 'workflow.finished',
  workflow_finished: 'workflow.finished',
  'workflow.failed': 'workflow.failed',
  workflow_failed: 'workflow.failed',
  'turn.finished': 'turn.finished',
  turn_finished: 'turn.finished',
  'turn.failed': 'turn.failed',
  turn_failed: 'turn.failed',
};

/** Load problems of an event node. */
export function eventProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const on = fields['on'];
  return typeof on === 'string' && on in RUN_EVENTS
    ? []
    : [`on: must be one of ${Object.keys(RUN_EVENTS).join(', ')} (got ${JSON.stringify(on ?? null)})`];
}

/** A CEL predicate over `scope`; an error or a non-true value is false (reference §3.5, §3.7). */
export function celHolds(source: string, scope: Readonly<Record<string, unknown>>): boolean {
  const compiled = compileCel(source);
  if (!compiled.ok) return false;
  const out = evalPredicate(compiled.program, scope);
  return out.ok && out.value === true;
}
