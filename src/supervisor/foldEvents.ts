// The events a fold-back writes: turn.done, turn.reply and root.finish (reference §14.2, §20).

import type { InboxOutcome } from '../domain/inbox.js';
import type { Logger } from '../obs/log.js';
import type { TurnResult } from '../protocol/frames.js';

export function logTurnDone(log: Logger, at: { node: number; ctx: string; turn: string }, result: TurnResult): void {
  log.info('turn.done', {
    ...at,
    status: result.status,
    rounds: result.rounds,
    tool_calls: result.tool_calls,
    tokens: result.usage.input_tokens + result.usage.output_tokens,
    ...(result.error ? { err: result.error } : {}),
  });
}

/** `turn.reply` (the text only with observability.log_content) and `root.finish` when finish was called. */
export function logOutcome(
  log: Logger,
  ctx: string,
  outcome: InboxOutcome,
  logContent: boolean,
  deterministic = false,
): void {
  if (outcome.reply) {
    const text = logContent ? { text: outcome.reply } : {};
    log.info('turn.reply', { ctx, chars: outcome.reply.length, ...(deterministic ? { deterministic } : {}), ...text });
  }
  if (outcome.finish_status !== undefined) log.info('root.finish', { ctx, status: outcome.finish_status });
}
