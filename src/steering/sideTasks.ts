// Side tasks as a producer (seed 003): `side.start` forks a conversation of the caller's owner, seeded with the
// parent's summary, and its instruction arrives there as a `side_task` event, one hop deeper than the caller.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { newUlid } from '../store/ulid.js';
import type { ToolCaller } from '../tools/toolOutcome.js';

export class SideTasks implements Producer {
  readonly name = 'side_tasks';
  private unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unplug = ctx.ports.plug('sideStart', (caller, instruction) => startSide(ctx, caller, instruction));
  }

  stop(): void {
    this.unplug?.();
    this.unplug = null;
  }
}

/** Opens the side conversation and accepts its instruction; answers its id at once (the accept follows). */
function startSide(ctx: ProducerContext, caller: ToolCaller, instruction: string): { conversation: string } | string {
  const depth = caller.depth + 1;
  const max = ctx.config.limits.max_message_depth;
  if (depth > max) return `refused: hop depth ${depth} would exceed limits.max_message_depth (${max})`;
  const id = `side-${newUlid(ctx.clock()).toLowerCase()}`;
  const opened = ctx.supervisor.steering.openSide(caller.conversation, id);
  if (typeof opened === 'string') return opened;
  const fields = { ctx: caller.conversation, side: id };
  ctx
    .accept({
      kind: 'side_task',
      parent: caller.conversation,
      context_id: id,
      text: instruction,
      principal: caller.principal,
      msg_depth: depth,
    })
    .then(
      ({ record }) => ctx.log.info('side.started', { ...fields, inbox_event: record.id }),
      (err: unknown) => ctx.log.error('inbox.accept.fail', { ...fields, err: describeError(err) }),
    );
  return { conversation: id };
}

/** Registered in runtime/producerList.ts: always on (side.start is granted like any internal tool). */
export function sideTasks(): SideTasks {
  return new SideTasks();
}
