// An in-memory A2aBackend for listener tests: `echo: X` completes with reply X shortly after, anything else stays
// working until the test finishes it. Tasks belong to their sender; another principal's task is "not found".
import {
  type A2aBackend,
  BackendError,
  type Principal,
  type SendRequest,
  type TaskQuery,
  type TaskUpdate,
} from '../../../src/a2a/backend.js';
import type { TaskRecord, TaskState } from '../../../src/domain/task.js';
import { selectTasks } from '../../../src/store/taskQuery.js';

const TERMINAL: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];

export class FakeBackend implements A2aBackend {
  readonly tasks = new Map<string, TaskRecord>();
  readonly sent: Array<{ principal: Principal; req: SendRequest }> = [];
  private readonly watchers = new Map<string, Set<(u: TaskUpdate) => void>>();
  private seq = 0;
  private clock = 1_000;

  async send(principal: Principal, req: SendRequest): Promise<TaskRecord> {
    this.sent.push({ principal, req });
    if (req.command) return this.save(this.record(principal, req, 'completed', JSON.stringify({ op: req.command.op })));
    if (req.text.trim() === '') throw new BackendError('invalid_params', 'the message has no text');
    if (req.text === 'drain me') throw new BackendError('draining', 'the agent is draining');
    const task = this.save(this.record(principal, req, 'working', null));
    const echo = /^echo: (.*)$/s.exec(req.text);
    if (echo) setTimeout(() => this.finish(task.id, echo[1] ?? ''), 30);
    return task;
  }

  settled(principal: Principal, taskId: string, signal: AbortSignal): Promise<TaskRecord | null> {
    const task = this.visible(principal, taskId);
    if (!task) return Promise.reject(new BackendError('not_found', 'no such task'));
    if (task.state !== 'working' && task.state !== 'submitted') return Promise.resolve(task);
    return new Promise((resolve) => {
      const off = this.subscribe(taskId, (u) => {
        if (u.kind === 'task' && u.task.state !== 'working') {
          off();
          resolve(u.task);
        }
      });
      signal.addEventListener('abort', () => {
        off();
        resolve(null);
      });
    });
  }

  async getTask(principal: Principal, taskId: string): Promise<TaskRecord | null> {
    return this.visible(principal, taskId);
  }

  private visible(principal: Principal, taskId: string): TaskRecord | null {
    const task = this.tasks.get(taskId);
    return task && (principal.role === 'operator' || task.principal === principal.id) ? task : null;
  }

  async listTasks(principal: Principal, query: TaskQuery): Promise<{ tasks: TaskRecord[]; total: number }> {
    const { after: _after, ...everything } = {
      ...query,
      principal: principal.role === 'operator' ? null : principal.id,
    };
    const total = selectTasks(this.tasks.values(), { ...everything, limit: Number.MAX_SAFE_INTEGER }).length;
    return { tasks: selectTasks(this.tasks.values(), { ...query, principal: everything.principal }), total };
  }

  async cancelTask(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = this.visible(principal, taskId);
    if (!task) throw new BackendError('not_found', `task ${taskId} of ${principal.id} not found`);
    if (TERMINAL.includes(task.state)) throw new BackendError('not_cancelable', `task is already ${task.state}`);
    return this.update(taskId, 'canceled', { message: 'canceled by the caller' });
  }

  async watch(principal: Principal, taskId: string, onUpdate: (u: TaskUpdate) => void): Promise<(() => void) | null> {
    return this.visible(principal, taskId) ? this.subscribe(taskId, onUpdate) : null;
  }

  /** Completes a task with a reply (the test's stand-in for a turn folding back). */
  finish(taskId: string, reply: string): TaskRecord {
    return this.update(taskId, 'completed', { message: reply, result: reply });
  }

  /** Publishes an activity update for a live task. */
  activity(taskId: string, activity: Record<string, unknown>): void {
    const task = this.tasks.get(taskId);
    if (task) for (const w of this.watchers.get(taskId) ?? []) w({ kind: 'activity', task, activity });
  }

  watcherCount(taskId: string): number {
    return this.watchers.get(taskId)?.size ?? 0;
  }

  private update(taskId: string, state: TaskState, patch: Partial<TaskRecord>): TaskRecord {
    const task = this.tasks.get(taskId);
    if (!task) throw new Error(`no task ${taskId}`);
    const ts = ++this.clock;
    const next = { ...task, ...patch, state, updated: ts, history: [...task.history, { state, ts }] };
    this.save(next);
    for (const w of [...(this.watchers.get(taskId) ?? [])]) w({ kind: 'task', task: next });
    return next;
  }

  private record(principal: Principal, req: SendRequest, state: TaskState, result: string | null): TaskRecord {
    const ts = ++this.clock;
    const id = `task-${++this.seq}`;
    return {
      id,
      context_id: req.contextId ?? `ctx-${this.seq}`,
      conversation: `a2a-${this.seq}`,
      state,
      principal: principal.id,
      inbox_event: `ev-${this.seq}`,
      message: result,
      result,
      question: null,
      history: [
        { state: 'submitted', ts },
        { state, ts },
      ],
      created: ts,
      updated: ts,
    };
  }

  private save(task: TaskRecord): TaskRecord {
    this.tasks.set(task.id, task);
    return task;
  }

  private subscribe(taskId: string, fn: (u: TaskUpdate) => void): () => void {
    const set = this.watchers.get(taskId) ?? new Set();
    this.watchers.set(taskId, set);
    set.add(fn);
    return () => set.delete(fn);
  }
}
