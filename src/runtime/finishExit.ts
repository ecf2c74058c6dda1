// `finish {exit: true}` in a daemon (reference §14.2 step 7): a committed turn that asked to exit drains the
// instance, which then exits with the code its finish status maps to (cli/daemon.ts). A job exits after its prompt
// anyway. Only work acting for the operator, or for nobody (timers, the startup prompt), may stop the daemon: a
// user's turn cannot end everyone else's work.
import type { Config } from '../config/types.js';
import { actsForAll } from '../domain/principal.js';
import type { FinishStatus } from '../protocol/status.js';
import type { CommittedTurn } from '../steering/turnFeed.js';
import type { Producer, ProducerContext } from './producer.js';

/** What a committed turn means for the process: nothing, an exit with a finish status, or an exit refused. */
export type ExitAsk = { exit: false } | { exit: true; status: FinishStatus } | { exit: 'refused'; reason: string };

/** Decides whether a committed turn stops the daemon, from its outcome (a retried fold has no result). Pure. */
export function classifyExitAsk(turn: CommittedTurn): ExitAsk {
  const { outcome } = turn;
  if (outcome.finish_exit !== true) return { exit: false };
  const principal = turn.event.principal;
  if (!actsForAll(principal)) {
    return { exit: 'refused', reason: `a turn for ${principal} may not stop the daemon` };
  }
  return { exit: true, status: outcome.finish_status ?? 'completed' };
}

export class FinishExit implements Producer {
  readonly name = 'finish_exit';
  private asked: { ctx: string; status: FinishStatus } | null = null;
  private unsubscribe: () => void = () => {};

  /** The turn that asked the daemon to exit (its conversation and finish status), once one has. */
  get exitAsked(): { ctx: string; status: FinishStatus } | null {
    return this.asked;
  }

  start(ctx: ProducerContext): void {
    this.unsubscribe = ctx.turns.onCommitted((turn) => {
      const ask = classifyExitAsk(turn);
      const at = { ctx: turn.event.payload.context_id, inbox_event: turn.event.id };
      if (ask.exit === 'refused') ctx.log.warn('finish.exit', { ...at, refused: ask.reason });
      if (ask.exit !== true || this.asked !== null) return;
      this.asked = { ctx: at.ctx, status: ask.status };
      // `root.finish {exit: true}` was logged by the fold; the drain says `drain.start {reason: "exit"}`.
      ctx.requestStop('exit');
    });
  }

  stop(): void {
    this.unsubscribe();
  }
}

/** Registered in runtime/producerList.ts: on for a daemon (`a2a.listen`). */
export function finishExit(config: Readonly<Config>): FinishExit | null {
  return config.a2a.listen === null ? null : new FinishExit();
}
