// Goal continuations as a producer (seed 003 goals): at an idle boundary — a fold committed, a restore, a resume,
// a goal set from outside a turn — a conversation's active goal gets its next turn as a `goal_continuation` event.
// The goal's state is the steering desk's; this only decides when to ask and accepts.
import { continuationText } from '../context/controls.js';
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import type { ContinuationDue } from './steering.js';
import type { CommittedTurn } from './turnFeed.js';

export class GoalContinuations implements Producer {
  readonly name = 'goal_continuations';
  private unsubscribe: Array<() => void> = [];

  start(ctx: ProducerContext): void {
    const steering = ctx.supervisor.steering;
    const afterTurn = (turn: CommittedTurn): void => {
      // A continuation dropped before it ran counts for nothing: its goal goes on after what went first.
      if (turn.outcome.error_kind === 'stale') return;
      const due = steering.goalAfterTurn(turn, ctx.turns.activity(turn.event.payload.context_id));
      if (due) continueGoal(ctx, due);
    };
    const atIdle = (conversation: string): void => {
      const due = steering.goalAtIdle(conversation, ctx.turns.activity(conversation));
      if (due) continueGoal(ctx, due);
    };
    this.unsubscribe = [ctx.turns.onCommitted(afterTurn), ctx.turns.onIdle(atIdle)];
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
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
