// A subagent's runs in one worker (reference §1.8): a one-shot subagent runs once; a warm one reports each run
// (`usage` then `turn_done`) and waits for the next injected message, over the same transcript, each run with a
// fresh step, token and deadline budget. Pause holds it at a run boundary; a cancel ends the session.
import type { Logger } from '../obs/log.js';
import type { SpawnPayload, TurnResult, TurnSpec, UpFrame } from '../protocol/frames.js';
import type { Msg, Usage } from '../protocol/messages.js';
import { addUsage } from '../protocol/usage.js';

/** Injected messages in order, and the pause flag, as the frame handlers set them. */
export class InjectQueue {
  private readonly messages: string[] = [];
  private paused = false;
  private wake: (() => void) | null = null;

  push(message: string): void {
    this.messages.push(message);
    this.poke();
  }

  /** Pauses or resumes; true when the flag changed. */
  setPaused(paused: boolean): boolean {
    const changed = this.paused !== paused;
    this.paused = paused;
    this.poke();
    return changed;
  }

  /** The next message once there is one and the session is not paused; null once `signal` aborts. */
  async next(signal: AbortSignal): Promise<string | null> {
    while (!signal.aborted) {
      if (!this.paused && this.messages.length > 0) return this.messages.shift() ?? null;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          this.wake = null;
          resolve();
        };
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return null;
  }

  private poke(): void {
    this.wake?.();
  }
}

export interface SessionIo {
  /** Runs one turn on `payload`; its usage frames add `base` (a warm session reports running totals). */
  run(payload: SpawnPayload, startedAt: number, base: Usage): Promise<TurnResult>;
  send(frame: UpFrame): Promise<void>;
  /** The next injected message, inside the `idle` long call; null when the session is cancelled. */
  next(): Promise<string | null>;
  now(): number;
  log: Logger;
}

/**
 * Runs the payload's turn; a warm subagent's session goes on with one run per injected message until a cancel.
 * Resolves with the last run's result, its usage the session's running total (the caller reports it last).
 */
export async function runSession(payload: SpawnPayload, startedAt: number, io: SessionIo): Promise<TurnResult> {
  let total: Usage = { input_tokens: 0, output_tokens: 0 };
  let transcript: Msg[] = payload.turn.messages;
  let spec = payload;
  let at = startedAt;
  for (let run = 1; ; run++) {
    const result = await io.run(spec, at, total);
    total = addUsage(total, result.usage);
    const last = { ...result, usage: total };
    if (!payload.turn.subagent?.warm || result.status === 'cancelled') return last;
    await io.send({ type: 'usage', ...total });
    await io.send({ type: 'turn_done', turn: last });
    transcript = [...transcript, ...result.messages];
    const message = await io.next();
    // A cancel between runs closes the session: no run of its own, so no result of its own.
    if (message === null) return { status: 'cancelled', messages: [], usage: total, rounds: 0, tool_calls: 0 };
    io.log.info('subagent.inject', { bytes: Buffer.byteLength(message, 'utf8') });
    transcript = [...transcript, { role: 'user', text: message, ts: io.now() }];
    spec = { ...payload, turn: { ...payload.turn, messages: transcript, ...nthRun(payload.turn, run + 1) } };
    at = io.now();
  }
}

/**
 * The turn id of the session's `k`-th run, `<handle>.run<n>` counting on from the payload's run, and its journal
 * scope: each run's calls have keys of their own, and a respawn goes on from the runs its record counted, so no
 * completed run's keys are used again (reference §5 item 2).
 */
export function nthRun(turn: TurnSpec, k: number): Pick<TurnSpec, 'turn_id' | 'journal_scope'> {
  const sub = turn.subagent;
  const id = sub ? `${sub.handle}.run${sub.run + k - 1}` : `${turn.turn_id}.${k}`;
  return { turn_id: id, ...(turn.journal_scope ? { journal_scope: `${turn.idempotency_prefix}#${id}.` } : {}) };
}
