// The turn side of workflow steps (producers reference §2.8 `agent`, turn reference §3.2 `message`): an agent step's
// turn goes through the durable inbox like any producer's, and its end comes back from the fold feed.
import type { InboxOutcome } from '../domain/inbox.js';
import type { TurnResult } from '../protocol/frames.js';
import { chargedTokens } from '../protocol/usage.js';
import type { ProducerContext } from '../runtime/producer.js';
import {
  type StepDelivery,
  type StepPorts,
  type StepTurnEnd,
  type StepTurnRequest,
  stepEndReason,
} from './nodeKind.js';
import { ENGINE_STOPPED } from './runEngine.js';

function endOf(outcome: InboxOutcome, result?: TurnResult): StepTurnEnd {
  const value = result?.value ?? result?.finish?.output;
  return {
    status: outcome.status,
    reply: outcome.reply,
    ...(value !== undefined ? { value } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(result ? { tokens: chargedTokens(result.usage) } : {}),
  };
}

/** How long a step that ended early listens for its cancelled turn's fold, to charge what it spent. */
const LATE_FOLD_MS = 5 * 60_000;

/**
 * Accepts the step's turn (idempotent per key) and resolves when it folded, now or in an earlier life. A step that
 * ends early cancels its turn (the worker is killed with it) and resolves at once; the listener stays until that
 * turn folds, so what it spent still counts against the run (`req.spendLate`). An engine stop (a drain) leaves the
 * turn to replay.
 */
function stepTurn(ctx: ProducerContext): (req: StepTurnRequest) => Promise<StepTurnEnd> {
  return async (req) => {
    if (req.signal.aborted) return { status: 'cancelled', reply: '', error: stepEndReason(req.signal) };
    let settle: (end: StepTurnEnd) => void = () => {};
    const ended = new Promise<StepTurnEnd>((resolve) => {
      settle = resolve;
    });
    let [folded, late] = [false, false];
    // Listening before the accept: a fast turn cannot fold between the two.
    const unsubscribe = ctx.turns.onCommitted((turn) => {
      if (turn.event.dedupe_key !== req.key) return;
      folded = true;
      const end = endOf(turn.outcome, turn.result);
      if (!late) return settle(end);
      unsubscribe();
      if (end.tokens !== undefined && end.tokens > 0) req.spendLate?.(end.tokens);
    });
    let eventId: string | null = null;
    const onAbort = (): void => {
      const error = stepEndReason(req.signal);
      if (eventId !== null && req.signal.reason !== ENGINE_STOPPED) ctx.supervisor.cancelEvent(eventId, error);
      settle({ status: 'cancelled', reply: '', error });
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { record } = await ctx.accept({
        kind: 'workflow_step',
        context_id: req.conversation,
        text: req.text,
        principal: req.principal,
        dedupe_key: req.key,
        ...(req.options ? { step: req.options } : {}),
      });
      eventId = record.id;
      if (record.status === 'done' && record.outcome) settle(endOf(record.outcome));
      else if (req.signal.aborted) onAbort();
      return await ended;
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      late = !folded && eventId !== null && req.signal.aborted && req.signal.reason !== ENGINE_STOPPED;
      if (late) setTimeout(unsubscribe, LATE_FOLD_MS).unref();
      else unsubscribe();
    }
  };
}

/** The `message` step's delivery through the `deliver` work port (agentMessages.ts), keyed by the step. */
function stepDelivery(ctx: ProducerContext): NonNullable<StepPorts['deliver']> {
  return async (req: StepDelivery) => {
    const deliver = ctx.ports.port('deliver');
    if (!deliver) return { ok: false, error: 'message delivery is not available in this process' };
    const caller = {
      conversation: req.from ?? 'root',
      principal: req.principal,
      turnId: req.key,
      depth: 0,
      kind: 'conversation' as const,
    };
    return deliver({ to: req.to, text: req.text, depth: 1, caller, dedupe: req.key });
  };
}

/** The turn-side ports a workflow desk in this runtime gets. */
export function turnPorts(ctx: ProducerContext): Pick<StepPorts, 'turn' | 'deliver'> {
  return { turn: stepTurn(ctx), deliver: stepDelivery(ctx) };
}
