// Goal continuations as a producer (seed 003 goals): at an idle boundary — a fold committed, a restore, a resume,
// a goal set from outside a turn — a conversation's active goal gets its next turn as a `goal_continuation` event.
// The steering desk decides and records each step (accounting, stops, the continuation's count); this accepts.
import { continuationText } from '../context/controls.js';
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import type { ContinuationDue } from './turnFeed.js';

export class GoalContinuations implements Producer {
  readonly name = 'goal_continuations';
  private unsubscribe: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unsubscribe = ctx.turns.onContinuationDue((due) => continueGoal(ctx, due));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/** Accepts the continuation; `goal.continued` once it is durable. */
function continueGoal(ctx: ProducerContext, due: ContinuationDue): void {
  const { goal } = due;
  const fields = { ctx: due.ctx, continuation: goal.continuations, turns: goal.turns, tokens: goal.tokens };
  ctx
    .accept({
      kind: 'goal_continuation',
      goal_created: goal.created,
      context_id: due.ctx,
      text: continuationText(goal),
      principal: due.principal,
    })
    .then(
      ({ record }) => ctx.log.info('goal.continued', { ...fields, inbox_event: record.id }),
      (err: unknown) => ctx.log.error('inbox.accept.fail', { ...fields, err: describeError(err) }),
    );
}

/** Registered in runtime/producerList.ts: always on (a conversation without a goal never continues). */
export function goalContinuations(): GoalContinuations {
  return new GoalContinuations();
}
