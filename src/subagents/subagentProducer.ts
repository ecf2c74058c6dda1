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

export class SubagentResults implements Producer {
  readonly name = 'subagent_results';
  private unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unplug = ctx.ports.plug('subagent_result', (ret) => {
      // Results the restore settles arrive before the conversations may be written: they wait for it.
      void ctx.restored.then(() => {
        try {
          ctx.supervisor.steering.note(ret.ctx, ret.text, ret.principal);
        } catch (err) {
          ctx.log.error('inbox.accept.fail', { ctx: ret.ctx, handle: ret.handle, err: describeError(err) });
        }
      });
    });
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
