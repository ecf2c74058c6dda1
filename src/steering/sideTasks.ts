// Side tasks as a producer (seed 003): `side.start` forks a conversation of the caller's owner (the steering desk
// opens and seeds it), and its instruction arrives there as a `side_task` event, one hop deeper than the caller.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import type { SideTaskRequest } from '../tools/toolOutcome.js';

export class SideTasks implements Producer {
  readonly name = 'side_tasks';
  private unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unplug = ctx.ports.plug('side_task', (req) => acceptSide(ctx, req));
  }

  stop(): void {
    this.unplug?.();
    this.unplug = null;
  }
}

/** Accepts the side task's instruction; the tool has answered with its conversation already. */
function acceptSide(ctx: ProducerContext, req: SideTaskRequest): void {
  const { caller, conversation } = req;
  const fields = { ctx: caller.conversation, side: conversation };
  ctx
    .accept({
      kind: 'side_task',
      parent: caller.conversation,
      context_id: conversation,
      text: req.instruction,
      principal: caller.principal,
      msg_depth: req.depth,
    })
    .then(
      ({ record }) => ctx.log.info('side.started', { ...fields, inbox_event: record.id }),
      (err: unknown) => ctx.log.error('inbox.accept.fail', { ...fields, err: describeError(err) }),
    );
}

/** Registered in runtime/producerList.ts: always on (side.start is granted like any internal tool). */
export function sideTasks(): SideTasks {
  return new SideTasks();
}
