// `wait on: condition | message | webhook` (producers reference §2.8, §3.7): their fields checked at load and the
// wait each suspends on. A message or webhook delivery is held on the run under the wait's private channel (apart
// from signals: heldDeliveries.ts) until the wait takes it, so a delivery is durable before it is acknowledged. Pure.
import type { StepWait, WorkflowRun } from '../../domain/workflow.js';
import { keysRead } from '../../expr/cel.js';
import { failed, type StepContext, type StepResult } from '../nodeKind.js';
import { authProblems } from '../startFields.js';

export const DELIVERED_ON = ['condition', 'message', 'webhook'] as const;
export type DeliveredOn = (typeof DELIVERED_ON)[number];

/** A callback route's life when the wait names no timeout (reference §3.7). */
export const CALLBACK_EXPIRY_MS = 3_600_000;
export const CALLBACK_PREFIX = '/hooks/_cb/';
const WEBHOOK_FIELDS = ['path', 'auth', 'methods', 'emit_url_to'];
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FIELD_OF: Readonly<Record<DeliveredOn, string>> = {
  condition: 'condition',
  message: 'conversation',
  webhook: 'webhook',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The run-private channel a delivery to this wait is held on: `@` keeps it apart from every signal name. */
export const waitChannel = (on: string, step: string, attempt: number): string => `@${on}/${step}#${attempt}`;

function conditionProblems(condition: unknown): string[] {
  if (typeof condition !== 'string' || condition.trim() === '')
    return ['wait on: condition needs condition (a CEL predicate)'];
  // Compiled at load as a raw field; here only how it reads memory.
  if (keysRead(condition, 'memory') === null)
    return ['wait.condition: read memory as memory.<key> or memory["key"] (has(memory.<key>) tests one)'];
  return [];
}

function webhookProblems(hook: unknown): string[] {
  if (hook === undefined) return [];
  if (!isObject(hook)) return [`wait.webhook must be an object {${WEBHOOK_FIELDS.join(', ')}}`];
  const problems = Object.keys(hook)
    .filter((k) => !WEBHOOK_FIELDS.includes(k))
    .map((k) => `unknown wait.webhook field "${k}" (allowed: ${WEBHOOK_FIELDS.join(', ')})`);
  const path = hook['path'];
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/') || path.includes('?')))
    problems.push('wait.webhook.path must start with / (no query)');
  problems.push(...authProblems(hook['auth']).map((p) => `wait.webhook.${p}`));
  const methods = hook['methods'];
  if (methods !== undefined && (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string')))
    problems.push('wait.webhook.methods must be a list of HTTP methods');
  const into = hook['emit_url_to'];
  if (into !== undefined && (typeof into !== 'string' || !NAME.test(into)))
    problems.push('wait.webhook.emit_url_to must be a variable name');
  return problems;
}

/** Load problems of the fields these `on` values read (`on` is any value: a field of another `on` is refused). */
export function deliveredProblems(on: unknown, fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [kind, field] of Object.entries(FIELD_OF))
    if (on !== kind && fields[field] !== undefined) problems.push(`wait.${field} applies only to on: ${kind}`);
  if (on === 'condition') problems.push(...conditionProblems(fields['condition']));
  if (on === 'message' && fields['conversation'] !== undefined && typeof fields['conversation'] !== 'string')
    problems.push('wait.conversation must be a conversation id or A2A contextId (a string; empty: any)');
  if (on === 'webhook') problems.push(...webhookProblems(fields['webhook']));
  return problems;
}

const what = (kind: string): string => (kind === 'wait' ? 'wait on: message' : kind);

/** The wait a `condition`, `message` or `webhook` step suspends on (`dueMs` from its timeout or until). */
export function suspendDelivered(ctx: StepContext, on: DeliveredOn, dueMs: number | null): StepResult {
  const { spec, step, run, now } = ctx;
  const channel = waitChannel(on, step.id, ctx.attempt);
  if (on === 'condition')
    return { type: 'suspend', wait: { kind: on, dueMs, sinceMs: now, condition: String(step.fields['condition']) } };
  if (on === 'message') {
    // No conversation named and none of the run's: "any" must be asked for, never fallen into.
    if (spec['conversation'] === undefined && run.conversation === null)
      return failed(`${what(step.kind)}: the run has no conversation; name one with conversation ("" waits on any)`);
    const conversation = spec['conversation'] === undefined ? (run.conversation ?? '') : String(spec['conversation']);
    return { type: 'suspend', wait: { kind: on, dueMs, sinceMs: now, signal: channel, conversation } };
  }
  const hook = isObject(spec['webhook']) ? spec['webhook'] : {};
  const path = typeof hook['path'] === 'string' ? hook['path'] : `${CALLBACK_PREFIX}${ctx.idempotencyKey}`;
  const wait: StepWait = {
    kind: on,
    dueMs: dueMs ?? now + CALLBACK_EXPIRY_MS,
    sinceMs: now,
    signal: channel,
    path,
    // As written (a `{{secret:…}}` stays a reference): the route resolves it when it opens.
    auth:
      isObject(step.fields['webhook']) && isObject(step.fields['webhook']['auth'])
        ? step.fields['webhook']['auth']
        : { none: true },
  };
  if (Array.isArray(hook['methods'])) wait.methods = hook['methods'].map((m) => String(m).toUpperCase());
  const into = hook['emit_url_to'];
  if (typeof into !== 'string') return { type: 'suspend', wait };
  const url = ctx.ports.callbacks?.url(path) ?? null;
  return { type: 'suspend', wait, setVar: { name: into, value: { path, url } } };
}

/**
 * The `wait on: message` steps of `runs` a new message takes (reference §3.7 step 1): waiting on its conversation
 * or contextId, or on any (empty); a run acting for a principal takes only that principal's or an operator's.
 */
export function messageTakers(
  runs: readonly Readonly<WorkflowRun>[],
  msg: { conversation: string; contextId: string; principal: string; role: string },
): Array<{ run: string; channel: string }> {
  const out: Array<{ run: string; channel: string }> = [];
  for (const run of runs) {
    if (run.principal !== null && run.principal !== msg.principal && msg.role !== 'operator') continue;
    for (const state of Object.values(run.steps)) {
      const wait = state.wait;
      if (state.status !== 'suspended' || wait?.kind !== 'message' || wait.signal === undefined) continue;
      const on = wait.conversation ?? '';
      if (on === '' || on === msg.conversation || on === msg.contextId) out.push({ run: run.id, channel: wait.signal });
    }
  }
  return out;
}

/** The ids of `runs` with a step suspended on `wait {on: signal, signal: name}` that `admits` lets through. */
export function signalWaiters(
  runs: readonly Readonly<WorkflowRun>[],
  name: string,
  admits: (run: Readonly<WorkflowRun>) => boolean,
): string[] {
  const waits = (r: Readonly<WorkflowRun>): boolean =>
    Object.values(r.steps).some((s) => s.status === 'suspended' && s.wait?.kind === 'signal' && s.wait.signal === name);
  return runs.filter((r) => waits(r) && admits(r)).map((r) => r.id);
}
