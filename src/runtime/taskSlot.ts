// The late-bound slot through which the supervisor reaches A2A tasks. The runtime owns it and hands it to the
// supervisor at construction; the A2A producer, started later with a port to that supervisor, plugs its task
// backend in. Construction thus runs one way (supervisor, then backend) and neither holds a setter on the other.
// Until something is bound (or with no listener at all) the slot answers as "no tasks, nobody to ask". Runs the
// embedding API started (agent.run) are asked through their program instead, whatever owns the tasks.
import type { FeedEntry } from '../domain/feed.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import type { EngineEventType, HumanAsk, StepTaskOpen, TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ToolResult } from '../tools/internalTools.js';

/** The embedding API's runs: their questions go to the program that started them, with their checklist changes. */
export interface RunHooks {
  /** True when `event` is one of its runs: a person (the program) can be asked about its turn. */
  claims(event: InboxEvent): boolean;
  /** Asks the program about its run's turn; null when `ask.eventId` is not one of its runs. */
  askHuman(ask: HumanAsk): Promise<ToolResult> | null;
  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void;
}

export class TaskHooksSlot implements TaskHooks {
  private target: TaskHooks | null = null;
  private runs: RunHooks | null = null;

  /** Plugs in the embedding API's runs (one agent, one set). */
  watchRuns(runs: RunHooks): void {
    this.runs = runs;
  }

  /** Plugs `hooks` in; a second producer that owns tasks is a wiring error. */
  bind(hooks: TaskHooks): void {
    if (this.target !== null && this.target !== hooks) throw new Error('task hooks are already bound');
    this.target = hooks;
  }

  unbind(hooks: TaskHooks): void {
    if (this.target === hooks) this.target = null;
  }

  get bound(): boolean {
    return this.target !== null;
  }

  taskForFold(eventId: string, outcome: InboxOutcome): Promise<TaskRecord | null> {
    return this.target?.taskForFold(eventId, outcome) ?? Promise.resolve(null);
  }

  taskFor(event: InboxEvent): TaskRecord | null {
    return this.target?.taskFor?.(event) ?? null;
  }

  recover(pending: readonly InboxEvent[]): Promise<void> {
    return this.target?.recover?.(pending) ?? Promise.resolve();
  }

  feedForFold(task: TaskRecord): FeedEntry[] {
    return this.target?.feedForFold?.(task) ?? [];
  }

  feedForTurn(event: InboxEvent, outcome: InboxOutcome, owner: string | null): FeedEntry[] {
    return this.target?.feedForTurn?.(event, outcome, owner) ?? [];
  }

  feedCommitted(): void {
    this.target?.feedCommitted?.();
  }

  afterFold(task: TaskRecord): void {
    this.target?.afterFold(task);
  }

  onActivity(eventId: string, activity: Record<string, unknown>): void {
    this.target?.onActivity(eventId, activity);
  }

  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void {
    this.runs?.onEngineEvent(eventId, type, fields);
    this.target?.onEngineEvent(eventId, type, fields);
  }

  get humanChannel(): boolean {
    return this.target?.humanChannel ?? false;
  }

  humanChannelFor(event: InboxEvent): boolean {
    return this.runs?.claims(event) === true || this.humanChannel;
  }

  askHuman(ask: HumanAsk): Promise<ToolResult> {
    const asked = this.runs?.askHuman(ask);
    if (asked) return asked;
    if (this.target) return this.target.askHuman(ask);
    return Promise.resolve({ result: 'ask_human: no person is reachable', is_error: true });
  }

  openStepTask(step: StepTaskOpen): Promise<TaskRecord | null> {
    return this.target?.openStepTask?.(step) ?? Promise.resolve(null);
  }

  endStepTask(id: string, state: TaskState, message: string): Promise<void> {
    return this.target?.endStepTask?.(id, state, message) ?? Promise.resolve();
  }
}
