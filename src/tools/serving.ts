// Serves a worker's `tool_request`: grant check, the permission check (security.policies), then the internal
// tool or a judged MCP call, answering at once, when a parked tool wakes, or when a deferred result settles.
import type { Config } from '../config/types.js';
import { humanChannelOf } from '../domain/humanChannel.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { UpFrame } from '../protocol/frames.js';
import type { TaskHooks } from '../supervisor/supervisorOptions.js';
import type { LiveTurn } from '../supervisor/turnWorkers.js';
import type { TimerService } from '../triggers/timerService.js';
import { runInternalTool, type ToolCaller, type ToolResult } from './internalTools.js';
import { denyMessage, judgeCall, type Verdict } from './policy.js';
import { routeIn, type ToolSurface, type TurnJudging } from './surface.js';
import type { ToolOutcome } from './toolOutcome.js';
import { endTurn } from './turnEnd.js';

/** What serving needs beyond the turn (whose tool host was built at spawn); built once per supervisor. */
export interface ToolServiceDeps {
  log: Logger;
  config: Readonly<Config>;
  tools: ToolSurface | undefined;
  /** A2A tasks: when a person can be reached, a policy `ask` goes to them. */
  tasks?: TaskHooks;
  /** Live activity: a turn parked on a tool is `waiting`. */
  progress?(turn: LiveTurn, event: 'tool.park' | 'tool.unpark', fields: Record<string, unknown>): void;
  now(): number;
  /** The durable timer service a parked tool (sleep) waits on; without it, an in-memory timer. */
  timers?: TimerService;
}

type ToolRequest = Extract<UpFrame, { type: 'tool_request' }>;

/** setTimeout's ceiling; a longer park re-arms. */
const MAX_TIMER_MS = 2_147_483_647;

/** The timer kind of a parked tool call: its owner is the turn, which never survives a restart. */
export const TOOL_TIMER_KIND = 'tool';

/** The timer owner of a turn: ending the turn deletes its timers (producers reference §5 item 19). */
export function turnTimerOwner(turnId: string): string {
  return `turn:${turnId}`;
}

/** Turns whose timers are already deleted at their end. */
const timersCleaned = new WeakSet<LiveTurn>();

/** Runs one tool call for `turn` and answers it. Never throws. */
export function serveToolRequest(deps: ToolServiceDeps, turn: LiveTurn, frame: ToolRequest): void {
  const ctx = turn.job.ctx;
  deps.log.info('tool.request', { node: turn.node, req: frame.id, tool: frame.name, ctx, turn: turn.turnId });
  const granted = frame.check_only ? turn.gated.has(frame.name) : turn.internal.has(frame.name);
  if (!granted) {
    const refusal = `tool "${frame.name}" is not granted to conversation ${ctx}`;
    reply(deps, turn, frame.id, { result: refusal, is_error: true }, frame.name);
    return;
  }
  const caller: ToolCaller = {
    conversation: ctx,
    principal: turn.job.principal,
    turnId: turn.turnId,
    depth: turn.job.depth,
    kind: ctx === 'root' ? 'root' : 'conversation',
    call: `${turn.job.event.id}#${frame.index ?? frame.id}`,
  };
  // A gated code tool runs in the worker: the supervisor only judges it and answers `allowed`.
  const proceed = frame.check_only
    ? () => reply(deps, turn, frame.id, { result: 'allowed', is_error: false }, frame.name)
    : () => execute(deps, turn, frame, caller);
  const verdict = judge(deps, judgingOf(deps, turn), caller, frame);
  if (verdict.action === 'deny') {
    reply(deps, turn, frame.id, { result: denyMessage(verdict, frame.name), is_error: true }, frame.name);
  } else if (verdict.action === 'ask') {
    awaitApproval(deps, turn, frame, verdict, proceed);
  } else {
    proceed();
  }
}

/**
 * What the turn's calls are judged by: what it launched with (a reload changes nothing under a running turn,
 * interfaces §3.6), else the surface and config in force.
 */
function judgingOf(deps: ToolServiceDeps, turn: LiveTurn): TurnJudging {
  if (turn.judging) return turn.judging;
  if (deps.tools) return deps.tools.judging();
  const { security, mcp, limits } = deps.config;
  const none = { tools: new Map(), judged: new Set<string>() };
  return { ...none, policies: security.policies, callTimeout: mcp.call_timeout, deadline: limits.run.deadline };
}

function judge(deps: ToolServiceDeps, judging: TurnJudging, caller: ToolCaller, frame: ToolRequest): Verdict {
  const tool = judging.tools.get(frame.name);
  const verdict = judgeCall(judging.policies, {
    tool: frame.name,
    ...(tool?.server ? { server: tool.server } : {}),
    tags: tool?.tags ?? [],
    caller: caller.kind,
    principal: caller.principal,
    args: frame.args,
  });
  if (judging.policies.length > 0) {
    deps.log.info('tool.policy', {
      tool: frame.name,
      rule: verdict.rule,
      action: verdict.action,
      ctx: caller.conversation,
    });
  }
  return verdict;
}

/**
 * `ask`: the call waits for a person (the task goes input_required, answered over A2A); with nobody reachable, or
 * no answer in time, it follows the rule's `on_timeout` (default deny). The turn stays parked meanwhile.
 */
function awaitApproval(
  deps: ToolServiceDeps,
  turn: LiveTurn,
  frame: ToolRequest,
  verdict: Extract<Verdict, { action: 'ask' }>,
  proceed: () => void,
): void {
  const decide = (approved: boolean | null): void => {
    const allowed = approved ?? verdict.on_timeout === 'allow';
    const how = approved === null ? `timeout:${verdict.on_timeout}` : approved ? 'approved' : 'declined';
    deps.log.info('tool.policy', { tool: frame.name, rule: verdict.rule, action: how });
    if (allowed) proceed();
    else {
      const why = approved === false ? 'a person declined it' : 'no person approved it in time';
      const result = `tool "${frame.name}" was not run: policy "${verdict.rule}" asks a person; ${why}`;
      reply(deps, turn, frame.id, { result, is_error: true }, frame.name);
    }
  };
  if (deps.tasks && humanChannelOf(deps.tasks, turn.job.event)) {
    const question = `May the agent run the tool "${frame.name}" with ${JSON.stringify(frame.args)}? (policy "${verdict.rule}") Reply yes or no.`;
    const asked = deps.tasks.askHuman({
      eventId: turn.job.event.id,
      question,
      // A yes/no question: clients offer yes and no, and an answer that is neither is refused and asked again.
      schema: { type: 'boolean' },
      timeoutAt: deps.now() + verdict.timeout,
      approval: { tool: frame.name, rule: verdict.rule },
    });
    asked.then(
      (r) => decide(approvalOf(r)),
      () => decide(null),
    );
    return;
  }
  parkUntil(deps, turn, frame.id, deps.now() + verdict.timeout, () => decide(null));
}

/** A person's answer to an approval question: true, false, or null when nobody answered. */
function approvalOf(r: ToolResult): boolean | null {
  if (r.is_error) return null;
  const answer = r.result as { reply?: unknown; timed_out?: boolean } | null;
  if (!answer || answer.timed_out) return null;
  return /^\s*(y|yes|ok|approve|approved|allow|true)\b/i.test(String(answer.reply));
}

function execute(deps: ToolServiceDeps, turn: LiveTurn, frame: ToolRequest, caller: ToolCaller): void {
  const judging = judgingOf(deps, turn);
  const judged = routeIn(judging, frame.name);
  if (judged && deps.tools) {
    const remaining = turn.startedAt + judging.deadline - deps.now();
    const timeoutMs = Math.max(100, Math.min(judging.callTimeout, remaining));
    const meta = {
      'agent/ctx': caller.conversation,
      'agent/instance': deps.config.agent.name,
      'agent/idempotency_key': `${deps.config.agent.name}/${caller.conversation}#${turn.turnId}.${frame.index ?? frame.id}`,
    };
    replyLater(deps, turn, frame.id, deps.tools.callRoute(judged, frame.args, { meta, timeoutMs }), frame.name);
    return;
  }
  const outcome = runInternalTool(frame.name, frame.args, caller, turn.host);
  if (outcome.kind === 'ready') reply(deps, turn, frame.id, outcome, frame.name);
  else if (outcome.kind === 'defer') replyLater(deps, turn, frame.id, outcome.promise, frame.name);
  else park(deps, turn, frame, outcome);
}

/**
 * Parks the call on a durable timer owned by the turn (its row deleted when the turn ends, however it ends), or,
 * without a timer service, on an in-memory one.
 */
function park(
  deps: ToolServiceDeps,
  turn: LiveTurn,
  frame: ToolRequest,
  outcome: Extract<ToolOutcome, { kind: 'park' }>,
) {
  deps.log.debug('tool.park', { node: turn.node, req: frame.id, tool: frame.name, wake_at: outcome.wakeAt });
  deps.progress?.(turn, 'tool.park', { tool: frame.name });
  let answered = false;
  const answer = (r: ToolResult): void => {
    if (answered) return;
    answered = true;
    reply(deps, turn, frame.id, r, frame.name);
  };
  const wake = (): void => {
    deps.progress?.(turn, 'tool.unpark', { tool: frame.name });
    answer(outcome.complete(deps.now()));
  };
  const { timers } = deps;
  if (timers === undefined) {
    parkUntil(deps, turn, frame.id, outcome.wakeAt, wake);
    return;
  }
  const owner = turnTimerOwner(turn.turnId);
  if (!timersCleaned.has(turn)) {
    timersCleaned.add(turn);
    const failed = (err: unknown) => deps.log.error('timer.cancel.fail', { owner, err: describeError(err) });
    turn.end.cleanups.push(() => void timers.cancelOwner(owner).catch(failed));
  }
  const payload = { node: turn.node, req: frame.id, tool: frame.name };
  timers.arm({ owner, kind: TOOL_TIMER_KIND, due: outcome.wakeAt, payload }, wake).catch((err: unknown) => {
    answer({ result: `${frame.name}: its timer could not be stored (${describeError(err)})`, is_error: true });
  });
}

/**
 * Calls `wake` once the clock reaches `wakeAt`. Timers may fire a little early against the wall clock, and cannot
 * wait longer than ~24.8 days at once, so the timer is re-armed until the time has really come.
 */
function parkUntil(deps: ToolServiceDeps, turn: LiveTurn, id: number, wakeAt: number, wake: () => void): void {
  const left = wakeAt - deps.now();
  if (left <= 0) {
    turn.parked.delete(id);
    wake();
    return;
  }
  turn.parked.set(
    id,
    setTimeout(() => parkUntil(deps, turn, id, wakeAt, wake), Math.min(left, MAX_TIMER_MS)),
  );
}

/** Answers when `promise` settles, unless the turn ended meanwhile (then nobody waits for it). */
function replyLater(deps: ToolServiceDeps, turn: LiveTurn, id: number, promise: Promise<ToolResult>, tool: string) {
  promise.then(
    (r) => reply(deps, turn, id, r, tool),
    (err: unknown) => reply(deps, turn, id, { result: `tool failed: ${String(err)}`, is_error: true }, tool),
  );
}

/** Sends the tool_result to the worker (`tool.reply`, reference §20); a turn that ended waits for nothing. */
function reply(deps: ToolServiceDeps, turn: LiveTurn, id: number, r: ToolResult, tool: string): void {
  if (turn.settled) return;
  deps.log.debug('tool.reply', { node: turn.node, req: id, tool, is_error: r.is_error });
  turn.handle.send({ type: 'tool_result', id, result: r.result, is_error: r.is_error });
}

/** Drops every parked tool and pending wait of a turn that ended (its worker is gone). */
export function unparkAll(turn: LiveTurn): void {
  for (const timer of turn.parked.values()) clearTimeout(timer);
  turn.parked.clear();
  endTurn(turn.end);
}
