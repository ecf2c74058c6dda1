// Serves a worker's `tool_request`: grant check, run the internal tool, reply now or park until it completes.
// Suspending tools (sleep) hold the turn's slot and conversation lock; the timer lives here, not in the worker.

import type { Logger } from '../obs/log.js';
import type { UpFrame } from '../protocol/frames.js';
import type { Store } from '../store/store.js';
import { type InternalToolHost, runInternalTool } from '../tools/internalTools.js';
import type { LiveTurn } from './liveTurn.js';

export interface ToolServiceDeps {
  store: Store;
  log: Logger;
  host: InternalToolHost;
  now(): number;
}

type ToolRequest = Extract<UpFrame, { type: 'tool_request' }>;

/** Runs one internal tool call for `turn` and answers it (at once, or when a parked tool completes). */
export function serveToolRequest(deps: ToolServiceDeps, turn: LiveTurn, frame: ToolRequest): void {
  const { log } = deps;
  const ctx = turn.job.ctx;
  log.info('tool.request', { node: turn.node, req: frame.id, tool: frame.name, ctx, turn: turn.turnId });
  if (!turn.internal.has(frame.name)) {
    reply(turn, frame.id, `tool "${frame.name}" is not granted to conversation ${ctx}`, true);
    return;
  }
  const caller = { conversation: ctx, principal: turn.job.principal, turnId: turn.turnId };
  const outcome = runInternalTool(frame.name, frame.args, caller, deps.host);
  if (outcome.kind === 'ready') {
    reply(turn, frame.id, outcome.result, outcome.is_error);
    return;
  }
  const delay = Math.max(0, outcome.wakeAt - deps.now());
  log.debug('tool.park', { node: turn.node, req: frame.id, tool: frame.name, ctx, wake_in_ms: delay });
  const timer = setTimeout(() => {
    turn.parked.delete(frame.id);
    const done = outcome.complete(deps.now());
    log.debug('tool.unpark', { node: turn.node, req: frame.id, tool: frame.name, ctx });
    reply(turn, frame.id, done.result, done.is_error);
  }, delay);
  turn.parked.set(frame.id, timer);
}

function reply(turn: LiveTurn, id: number, result: unknown, isError: boolean): void {
  turn.handle.send({ type: 'tool_result', id, result, is_error: isError });
}

/** Drops every parked tool of a turn that ended (its worker is gone; nobody waits for the answer). */
export function unparkAll(turn: LiveTurn): void {
  for (const timer of turn.parked.values()) clearTimeout(timer);
  turn.parked.clear();
}
