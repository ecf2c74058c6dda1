// The bodies of workflow.* (producers reference §2.12): each reaches the workflow desk through the `workflows`
// work port; without it the tool says it is not available. Texts are the reference's.

import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import type { Args } from '../tools/handlers/handler.js';
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
  toolDefer,
  toolError,
  toolOk,
  toolUnavailable,
} from '../tools/toolOutcome.js';
import { loadWorkflow } from './definitions.js';
import { parseWorkflowDuration } from './durations.js';
import { isStartKind } from './nodeKinds.js';
import type { WorkflowDesk } from './workflowDesk.js';

const HOUR_MS = 3_600_000;

function deskOf(host: InternalToolHost): WorkflowDesk | null {
  return host.port?.('workflows')?.() ?? null;
}

const ok = (result: unknown): ToolResult => ({ result, is_error: false });
const err = (message: string): ToolResult => ({ result: message, is_error: true });

function timeoutMs(value: unknown): number {
  if (value === undefined) return HOUR_MS;
  const parsed = parseWorkflowDuration(value);
  return parsed.ok ? parsed.ms : HOUR_MS;
}

function answer(run: Readonly<WorkflowRun>): Record<string, unknown> {
  return { run: run.id, status: run.status, output: run.output, error: run.error };
}

function summary(run: Readonly<WorkflowRun>): Record<string, unknown> {
  const steps: Record<string, number> = {};
  for (const s of Object.values(run.steps)) steps[s.status] = (steps[s.status] ?? 0) + 1;
  return {
    id: run.id,
    workflow: run.workflow,
    status: run.status,
    start: run.start.node,
    steps,
    tokens: run.tokens ?? 0,
    created: run.created,
    updated: run.updated,
    finished: run.finished,
    output: run.output,
    error: run.error,
    principal: run.principal,
  };
}

/** A caller sees its own principal's runs; the operator (null principal) sees all. */
const visible = (run: Readonly<WorkflowRun>, caller: ToolCaller): boolean =>
  caller.principal === null || run.principal === caller.principal;

function run(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.run');
  const req = {
    workflow: String(args['name']),
    inputs: (args['inputs'] as Record<string, unknown>) ?? {},
    principal: caller.principal,
    conversation: caller.conversation,
    startKey: `tool:${caller.call ?? `${caller.turnId}#${host.now()}`}`,
  };
  if (typeof args['start'] === 'string') Object.assign(req, { node: args['start'] });
  const started = desk.start(req).then(async (got): Promise<ToolResult> => {
    if (!got.ok) return err(got.error);
    if (args['wait'] !== true) return ok({ run: got.run.id, status: 'running', workflow: got.run.workflow });
    const ended = await desk.wait(got.run.id, timeoutMs(args['timeout']));
    return ok(ended ? answer(ended) : { run: got.run.id, status: 'running', timed_out: true });
  });
  return toolDefer(started);
}

function wait(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.wait');
  const id = String(args['run']);
  return toolDefer(
    desk.run(id).then(async (found): Promise<ToolResult> => {
      if (!found) return err(`no such run "${id}"`);
      const ended = await desk.wait(id, timeoutMs(args['timeout']));
      return ok(ended ? answer(ended) : { run: id, status: 'running', timed_out: true });
    }),
  );
}

function status(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.status');
  if (typeof args['run'] === 'string') {
    return toolDefer(
      desk
        .run(args['run'])
        .then((r) =>
          ok({ runs: r && visible(r, caller) ? [{ ...summary(r), step_states: r.steps, vars: r.vars }] : [] }),
        ),
    );
  }
  const live = desk.engine
    .live()
    .filter((r) => visible(r, caller) && (args['name'] === undefined || r.workflow === args['name']));
  return toolOk({ runs: live.map(summary) });
}

function list(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.list');
  const live = desk.engine.live().filter((r) => visible(r, caller));
  const workflows = [...desk.definitions().values()].map((d) => ({
    name: d.name,
    description: d.description,
    armed: d.armed,
    hash: d.hash.slice(0, 12),
    starts: Object.values(d.steps)
      .filter((s) => isStartKind(s.kind))
      .map((s) => ({ node: s.id, kind: s.kind })),
    runs: live.filter((r) => r.workflow === d.name).map((r) => ({ id: r.id, status: r.status })),
  }));
  return toolOk({ workflows });
}

function cancel(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.cancel');
  const id = String(args['run']);
  const reason = typeof args['reason'] === 'string' ? args['reason'] : 'cancelled by request';
  const live = desk.engine.get(id);
  if (live) {
    if (!visible(live, caller)) return toolError(`no such run "${id}"`);
    return toolDefer(desk.engine.cancel(id, reason).then(() => ok({ ok: true, status: 'cancelled' })));
  }
  // Replicas: a run live at another replica is cancelled there (the desk routes it).
  const elsewhere = async (): Promise<ToolResult> => {
    const run = await desk.run(id);
    if (!run || !visible(run, caller) || TERMINAL_RUN.has(run.status)) return err(`no such run "${id}"`);
    const done = await desk.cancelRun(id, reason);
    return done.ok ? ok({ ok: true, status: done.status }) : err(done.error);
  };
  return toolDefer(elsewhere());
}

function define(op: 'create' | 'update', args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable(`workflow.${op}`);
  const document = (
    op === 'update' ? { ...(args['definition'] as object), name: args['name'] } : args['definition']
  ) as Record<string, unknown>;
  const loaded = loadWorkflow(document);
  if (!loaded.ok) return toolError(`workflow.${op}: ${loaded.errors.join('; ')}`);
  // What the config must provide (a search provider) is checked as a configured workflow's is.
  const unreachable = host.port?.('workflow_reach')?.(loaded.def) ?? [];
  if (unreachable.length > 0) return toolError(`workflow.${op}: ${unreachable.join('; ')}`);
  const name = loaded.def.name;
  const exists = desk.definitions().has(name);
  if (desk.isConfigured(name)) return toolError(`workflow "${name}" is configured (edit the config it loads from)`);
  if (op === 'create' && exists) return toolError(`workflow "${name}" exists (use workflow.update)`);
  if (op === 'update' && !exists) return toolError(`workflow "${name}" does not exist (use workflow.create)`);
  const armed = op === 'update' || args['arm'] !== false;
  const def = { ...loaded.def, armed };
  return toolDefer(
    desk.define(name, document, def).then(
      () => ok({ name, hash: def.hash.slice(0, 12), armed }),
      (e: unknown) => err(`workflow.${op}: store: ${(e as Error).message}`),
    ),
  );
}

function remove(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.delete');
  const name = String(args['name']);
  if (desk.isConfigured(name)) return toolError(`workflow "${name}" is configured (edit the config it loads from)`);
  if (!desk.definitions().has(name)) return toolError(`no such workflow "${name}"`);
  return toolDefer(desk.define(name, null, null).then(() => ok({ ok: true })));
}

/**
 * Delivers the signal to `run` (or to every run of the caller's waiting on it) and fires the signal starts named
 * `name`; answers the real delivered count (reference §5 item 8).
 */
function signal(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const desk = deskOf(host);
  if (!desk) return toolUnavailable('workflow.signal');
  const key = `tool:${caller.call ?? `${caller.turnId}#${host.now()}`}`;
  const target = typeof args['run'] === 'string' ? desk.engine.get(args['run']) : undefined;
  // A run of another principal's is not the caller's to signal (as for workflow.status and cancel).
  const run =
    typeof args['run'] !== 'string'
      ? (r: Readonly<WorkflowRun>) => visible(r, caller)
      : target && visible(target, caller)
        ? target.id
        : () => false;
  const sent = desk.signal(
    String(args['name']),
    args['payload'] ?? null,
    key,
    run,
    `conversation:${caller.conversation}`,
  );
  return toolDefer(sent.then((n) => ok({ delivered: n })));
}

/** Name → body, spread into the internal handler table. */
export const WORKFLOW_HANDLERS = {
  'workflow.run': run,
  'workflow.wait': wait,
  'workflow.status': status,
  'workflow.list': list,
  'workflow.cancel': cancel,
  'workflow.signal': signal,
  'workflow.create': (a: Args, c: ToolCaller, h: InternalToolHost) => define('create', a, c, h),
  'workflow.update': (a: Args, c: ToolCaller, h: InternalToolHost) => define('update', a, c, h),
  'workflow.delete': remove,
};
