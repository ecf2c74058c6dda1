// Who waits for a subagent's end (a sync subagent.run, subagent.await): answered once when it ends, at their
// timeout, or dropped when their own turn ends (reference §1.9 step 3, §5 item 1). In memory only.
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';
import type { ToolResult } from '../tools/toolOutcome.js';
import { answerOf } from './results.js';
import type { OnCallerEnd } from './subagentHost.js';

type Waiter = (record: SubagentRecord) => void;

/** setTimeout's ceiling (2^31 - 1 ms, ~24.8 days): a longer delay overflows and fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export class SubagentWaiters {
  private readonly byHandle = new Map<string, Set<Waiter>>();

  /**
   * Resolves with the answer at the end, `{timed_out: true}` at the timeout, or `{dropped: true}` (an error) once
   * the caller is gone: a workflow step's watch awaits this promise after its abort (reference §1.9 step 3).
   */
  wait(record: SubagentRecord, timeoutMs: number | null, onEnd: OnCallerEnd): Promise<ToolResult> {
    if (isTerminal(record.status)) return Promise.resolve({ result: answerOf(record), is_error: false });
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const set = this.byHandle.get(record.handle) ?? new Set<Waiter>();
      this.byHandle.set(record.handle, set);
      const settle = (answer: ToolResult): void => {
        clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.byHandle.get(record.handle) === set) this.byHandle.delete(record.handle);
        resolve(answer);
      };
      const waiter: Waiter = (ended) => settle({ result: answerOf(ended), is_error: false });
      set.add(waiter);
      if (timeoutMs !== null) {
        const delay = Math.min(timeoutMs, MAX_TIMER_MS);
        timer = setTimeout(
          () => settle({ result: { handle: record.handle, status: record.status, timed_out: true }, is_error: false }),
          delay,
        );
      }
      onEnd(() => settle({ result: { handle: record.handle, status: record.status, dropped: true }, is_error: true }));
    });
  }

  /** How many handles have a waiter: none is left behind by an answered, timed-out or dropped wait. */
  get watched(): number {
    return this.byHandle.size;
  }

  /** The handles waited on now. */
  handles(): string[] {
    return [...this.byHandle.keys()];
  }

  /** Answers every waiter of `record` with its answer now. */
  answer(record: SubagentRecord): void {
    for (const waiter of [...(this.byHandle.get(record.handle) ?? [])]) waiter(record);
    this.byHandle.delete(record.handle);
  }
}
