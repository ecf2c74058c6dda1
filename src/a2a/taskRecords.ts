// The A2A task records of one backend: what the store holds, the newest record of each task whose turn is still
// to end (by its inbox event), and the watchers told of every change. Saves and tells; decides nothing.
import type { InboxEvent, InboxRecord } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import type { TaskUpdate } from './backend.js';
import type { TaskFeed } from './taskFeed.js';
import { isTerminal, rebuiltTask } from './tasks.js';
import { TaskWatchers } from './taskWatchers.js';

export class TaskRecords {
  readonly watchers = new TaskWatchers();
  /** Tasks whose turn has not ended, by inbox event: activity and engine events reach their watchers in order. */
  private readonly live = new Map<string, TaskRecord>();

  constructor(private readonly deps: { store: Store; log: Logger; feed?: TaskFeed | undefined }) {}

  /** The task an accepted event answers; rebuilt (and saved) when an older store lost it after the inbox write. */
  async taskOf(ev: InboxEvent | InboxRecord): Promise<TaskRecord | null> {
    const t = ev.payload.task;
    if (!t) return null;
    const existing = await this.deps.store.tasks.get(t.id);
    if (existing) return existing;
    const task = rebuiltTask(ev);
    if (task) await this.deps.store.tasks.save(task);
    return task;
  }

  /** A retry of a message this task already consumed: the task as it is, nothing written. */
  replayed(task: TaskRecord): TaskRecord {
    this.deps.log.info('a2a.task', { task: task.id, state: task.state, principal: task.principal, replayed: true });
    return this.remember(task);
  }

  /** Tells the watchers of the event's task, at once and in order (a live task is known by its event). */
  toWatchers(eventId: string, update: (task: TaskRecord) => TaskUpdate): void {
    const task = this.live.get(eventId);
    if (task) this.watchers.tell(task.id, update(task));
  }

  /** Keeps the newest record of a task whose turn is still to end, by its inbox event (the live feed's lookup). */
  remember(task: TaskRecord): TaskRecord {
    if (task.inbox_event === null) return task;
    if (isTerminal(task.state)) this.live.delete(task.inbox_event);
    else this.live.set(task.inbox_event, task);
    return task;
  }

  /** Saves the task and resolves with what the store then holds (a terminal state there is never overwritten). */
  async save(task: TaskRecord): Promise<TaskRecord> {
    await this.deps.store.tasks.save(task);
    return this.saved(task);
  }

  /**
   * A client's answer to `read` (the task as stored when the answer came): a request the conversation's lease
   * holder applies, so any replica takes it, even one that lost that conversation earlier (issue 19).
   */
  async saveAnswer(task: TaskRecord, read: TaskRecord): Promise<TaskRecord> {
    const { tasks } = this.deps.store;
    await (tasks.saveAnswer ? tasks.saveAnswer(task, read) : tasks.save(task));
    return this.saved(task);
  }

  private async saved(task: TaskRecord): Promise<TaskRecord> {
    const stored = (await this.deps.store.tasks.get(task.id)) ?? task;
    this.deps.log.info('a2a.task', { task: stored.id, state: stored.state, principal: stored.principal });
    this.notify(stored);
    return stored;
  }

  /** Tells the feed and the task's watchers of its newest record. */
  notify(task: TaskRecord): void {
    this.remember(task);
    this.deps.feed?.task(task);
    this.watchers.tell(task.id, { kind: 'task', task });
  }
}
