// The `subagent` step's way to the subagent desk (producers reference §2.8, §1.4): the run is the caller — its
// principal, the conversation that started it (else root), depth 0 — through the same gates as subagent.run. A step
// that ends early (cancel, timeout, the run's end) cancels its sync child; an engine stop (a drain) leaves the child
// to the subagent restore, and the replayed step finds it by its call key.
import { ROOT_CONVERSATION } from '../context/conversation.js';
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';
import type { WorkflowRun } from '../domain/workflow.js';
import type { Usage } from '../protocol/messages.js';
import type { ProducerContext } from '../runtime/producer.js';
import type { ToolCaller, ToolResult } from '../tools/toolOutcome.js';
import { type StepPorts, type StepSubagentEnd, type StepSubagentRequest, stepEndReason } from './nodeKind.js';
import { ENGINE_STOPPED } from './runEngine.js';

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** A workflow step's subagent spent `usage`: it counts against the run (its `limits.tokens`). */
    run_spent(run: string, usage: Usage): void;
  }
}

type Desk = ProducerContext['supervisor']['subagents'];
type Answer = Extract<StepSubagentEnd, { ok: true }>['answer'];

function callerOf(req: Pick<StepSubagentRequest, 'run' | 'step' | 'principal' | 'conversation' | 'key'>): ToolCaller {
  return {
    conversation: req.conversation ?? ROOT_CONVERSATION,
    principal: req.principal,
    turnId: `step:${req.run}/${req.step}`,
    depth: 0,
    kind: req.conversation === null ? 'root' : 'conversation',
    call: req.key,
    workflow: { run: req.run, step: req.step },
  };
}

function endOf(result: ToolResult): StepSubagentEnd {
  if (result.is_error) return { ok: false, error: String(result.result) };
  const answer = result.result as Answer;
  return { ok: true, sync: 'result' in answer, answer };
}

/** The live child a step started under `key` (the run's principal sees it). */
function childOf(desk: Desk, principal: string | null, key: string): SubagentRecord | undefined {
  return desk.seenBy(principal).find((r) => r.call_key === key && !isTerminal(r.status));
}

/** The port the workflow desk's `subagent` kind calls. */
export function stepSubagents(ctx: Pick<ProducerContext, 'supervisor'>): NonNullable<StepPorts['subagent']> {
  return async (req) => {
    const desk = ctx.supervisor.subagents;
    const cleanups: Array<() => void> = [];
    const host = desk.forTurn((cleanup) => cleanups.push(cleanup));
    const caller = callerOf(req);
    const onAbort = (): void => {
      if (req.signal.reason === ENGINE_STOPPED) return;
      const child = childOf(desk, req.principal, req.key);
      if (child) host.kill(caller, child.handle, stepEndReason(req.signal));
      for (const cleanup of cleanups.splice(0)) cleanup();
    };
    if (req.signal.aborted) return { ok: false, error: 'cancelled' };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = host.run(caller, req.args);
      if (outcome.kind === 'defer') return endOf(await outcome.promise);
      if (outcome.kind === 'ready') return endOf(outcome);
      return { ok: false, error: 'subagent.run parked unexpectedly' };
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
  };
}

/** The port a `wait {on: subagent}` step's watch calls: subagent.await acting for the run, dropped on abort. */
export function awaitSubagents(ctx: Pick<ProducerContext, 'supervisor'>): NonNullable<StepPorts['awaitSubagent']> {
  return async (req) => {
    const cleanups: Array<() => void> = [];
    const host = ctx.supervisor.subagents.forTurn((cleanup) => cleanups.push(cleanup));
    const caller = callerOf({ ...req, run: '', step: '', key: `wait:${req.handle}` });
    const drop = (): void => {
      for (const cleanup of cleanups.splice(0)) cleanup();
    };
    if (req.signal.aborted) return { ok: false, error: 'cancelled' };
    req.signal.addEventListener('abort', drop, { once: true });
    try {
      const outcome = host.await(caller, req.handle, null);
      const result = outcome.kind === 'defer' ? await outcome.promise : outcome.kind === 'ready' ? outcome : null;
      if (result === null) return { ok: false, error: 'subagent.await parked unexpectedly' };
      // After the abort the wait resolves `dropped`: the step ended cancelled, as it would before it began.
      if (result.is_error) return { ok: false, error: req.signal.aborted ? 'cancelled' : String(result.result) };
      return { ok: true, sync: true, answer: result.result as Answer };
    } finally {
      req.signal.removeEventListener('abort', drop);
    }
  };
}

/**
 * A run that ended other than `completed` cancels the live subagents its steps started (§5 item 13), except
 * detached ones, which by definition outlive whoever started them.
 */
export function endRunSubagents(ctx: Pick<ProducerContext, 'supervisor'>, run: Readonly<WorkflowRun>): void {
  if (run.status === 'completed') return;
  const desk = ctx.supervisor.subagents;
  const host = desk.forTurn(() => {});
  for (const record of desk.seenBy(run.principal)) {
    const by = record.requested_by;
    if (by.run !== run.id || record.mode === 'detached' || isTerminal(record.status) || by.step === undefined) continue;
    const caller = callerOf({ ...run, run: run.id, step: by.step, key: record.call_key ?? '' });
    host.kill(caller, record.handle, `its workflow run ended ${run.status}`);
  }
}
