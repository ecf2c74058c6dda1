// Who follows which task (streams, blocking sends), and the waits for a task to settle or to end. Owns only the
// subscriptions: it reads no store itself and decides nothing about states beyond "settled" and "terminal".
import type { AgentConfig } from '../config/types.js';
import type { TaskRecord } from '../domain/task.js';
import { BackendError, type TaskUpdate } from './backend.js';
import { isTerminal } from './tasks.js';

type Watcher = (u: TaskUpdate) => void;

/**
 * How long a cancel waits for the cancelled turn's fold: it comes once the worker is gone, within the cancel grace
 * (2 s) and its killpg; past this bound (a store refusing the fold) the cancel answers with the task as it stands.
 */
export const CANCEL_FOLD_MS = 10_000;

/** The seed's wake_on when the backend is given none. */
export const SEED_WAKE: Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'> = {
  wake_on: ['a2a_message', 'human_reply', 'workflow_failed'],
  on_workflow_finished: 'ignore',
};

export class TaskWatchers {
  private readonly byTask = new Map<string, Set<Watcher>>();

  /** Tasks with someone following them: what a caller that went away must not leave. */
  get followed(): number {
    return this.byTask.size;
  }

  subscribe(taskId: string, onUpdate: Watcher): () => void {
    const set = this.byTask.get(taskId) ?? new Set();
    set.add(onUpdate);
    this.byTask.set(taskId, set);
    return () => {
      set.delete(onUpdate);
      if (set.size === 0) this.byTask.delete(taskId);
    };
  }

  /** Resolves with the task once an update shows it terminal; null after `ms` without one. Follows it at once. */
  untilTerminal(taskId: string, ms: number): Promise<TaskRecord | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(null);
      }, ms);
      const off = this.subscribe(taskId, (u) => {
        if (u.kind !== 'task' || !isTerminal(u.task.state)) return;
        clearTimeout(timer);
        off();
        resolve(u.task);
      });
    });
  }

  tell(taskId: string, update: TaskUpdate): void {
    for (const w of this.byTask.get(taskId) ?? []) w(update);
  }

  /**
   * Resolves with the task once it is terminal or input_required; null when `signal` aborts first. Follows the
   * task BEFORE `read` runs, so an end that lands between the read and the wait is not missed.
   */
  async settled(taskId: string, read: () => Promise<TaskRecord | null>, signal: AbortSignal) {
    let ended: TaskRecord | null = null;
    let finish: ((value: TaskRecord | null) => void) | null = null;
    const off = this.subscribe(taskId, (u) => {
      if (u.kind !== 'task' || !isSettled(u.task)) return;
      if (finish) finish(u.task);
      else ended ??= u.task;
    });
    const task = await read().catch((err: unknown) => {
      off();
      throw err;
    });
    if (!task) {
      off();
      throw new BackendError('not_found', 'task not found');
    }
    const now = ended ?? (isSettled(task) ? task : null);
    if (now || signal.aborted) {
      off();
      return now;
    }
    return new Promise<TaskRecord | null>((resolve) => {
      const onAbort = (): void => finish?.(null);
      finish = (value) => {
        off();
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function isSettled(task: TaskRecord): boolean {
  return isTerminal(task.state) || task.state === 'input_required';
}
