// The questions a turn is waiting on (ask_human), one per task or run, each with its timeout: shared by the A2A
// task backend and the embedding API's RunDesk. Owns only the waits and their timers: closing them all (the agent
// stops) leaves no timer behind to fire after the store is closed.
import type { ToolResult } from '../tools/internalTools.js';

/** What a turn still waiting on a person hears when the agent stops. */
export const STOPPING: ToolResult = { result: 'ask_human: the agent is stopping; nobody will answer', is_error: true };

interface OpenQuestion {
  resolve: (r: ToolResult) => void;
  timer: NodeJS.Timeout;
}

/** The longest delay setTimeout takes; a longer one would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

export class OpenQuestions {
  private readonly open = new Map<string, OpenQuestion>();
  private closed = false;

  has(taskId: string): boolean {
    return this.open.has(taskId);
  }

  /** The tasks whose question is open. */
  ids(): string[] {
    return [...this.open.keys()];
  }

  /**
   * Resolves with the answer `close(taskId, …)` gives; after `delayMs` without one, `onTimeout` runs (and is
   * expected to close the question). Once closed for good, a new wait ends at once with `closedAnswer`.
   */
  wait(taskId: string, delayMs: number, onTimeout: () => void, closedAnswer: ToolResult): Promise<ToolResult> {
    if (this.closed) return Promise.resolve(closedAnswer);
    return new Promise((resolve) => {
      const timer = setTimeout(onTimeout, Math.max(0, Math.min(delayMs, MAX_DELAY_MS)));
      this.open.set(taskId, { resolve, timer });
    });
  }

  /** Answers the task's open question (if any) and clears its timer. */
  close(taskId: string, answer: ToolResult): void {
    const open = this.open.get(taskId);
    if (!open) return;
    clearTimeout(open.timer);
    this.open.delete(taskId);
    open.resolve(answer);
  }

  /** Answers every open question with `answer`, clears every timer, and refuses new waits from now on. */
  closeAll(answer: ToolResult): void {
    this.closed = true;
    for (const taskId of [...this.open.keys()]) this.close(taskId, answer);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
