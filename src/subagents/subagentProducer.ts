// Subagent results as a producer (reference §1.9): the desk hands each result's note here, through the
// `subagent_result` work port, and this leaves it in the caller's conversation as a `[note]` its next turn reads
// (never a turn of its own, as agentd). stopIntake closes the port, so a draining runtime takes no new results.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';

/** One result on its way back: the conversation that started the subagent, and the note's text. */
export interface SubagentReturn {
  ctx: string;
  principal: string | null;
  handle: string;
  text: string;
}

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** A subagent's result note for the conversation that started it. */
    subagent_result(ret: SubagentReturn): void;
  }
}

/** How long a note waits, try after try, for the caller's conversation to be free of another replica's lease. */
const NOTE_WAIT_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

export class SubagentResults implements Producer {
  readonly name = 'subagent_results';
  private unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unplug = ctx.ports.plug('subagent_result', (ret) => {
      // Results the restore settles arrive before the conversations may be written: they wait for it.
      void ctx.restored.then(() => this.deliver(ctx, ret, 0));
    });
  }

  /**
   * Replicas: while another replica holds the caller's conversation live, the note waits (its fenced write would be
   * refused and lost) and is written once the lease is free or here; its holder gives it back after its fold.
   */
  private async deliver(ctx: ProducerContext, ret: SubagentReturn, attempt: number): Promise<void> {
    const leases = ctx.store.leases;
    const wait = NOTE_WAIT_MS[attempt];
    try {
      if (
        wait !== undefined &&
        leases?.heldElsewhere &&
        !leases.holds(ret.ctx) &&
        (await leases.heldElsewhere(ret.ctx))
      ) {
        ctx.log.info('subagent.note_waits', { ctx: ret.ctx, handle: ret.handle, retry_ms: wait });
        setTimeout(() => void this.deliver(ctx, ret, attempt + 1), wait).unref();
        return;
      }
      ctx.supervisor.steering.note(ret.ctx, ret.text, ret.principal);
    } catch (err) {
      ctx.log.error('inbox.accept.fail', { ctx: ret.ctx, handle: ret.handle, err: describeError(err) });
    }
  }

  stop(): void {
    this.unplug?.();
    this.unplug = null;
  }
}

/** Registered in runtime/producerList.ts: always on (agent.wake_on decides which results leave a note). */
export function subagentResults(): SubagentResults {
  return new SubagentResults();
}
