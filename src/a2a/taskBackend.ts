// A2A tasks over the supervisor: each caller's messages go to conversations it owns, a task's state follows its
// turn, a person answers questions through the task, and operators run commands. The listener only maps wire types.
import type { AgentConfig } from '../config/types.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { SupervisorPort } from '../runtime/producer.js';
import { a2aMessageNote, a2aMessageWakes, humanReplyWake } from '../steering/wakeNotes.js';
import type { Accepted, Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { AcceptInput, EngineEventType, HumanAsk, TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ToolResult } from '../tools/internalTools.js';
import { type A2aBackend, BackendError, type Principal, type SendRequest, type TaskUpdate } from './backend.js';
import { runCommand } from './commands.js';
import { isTerminal, newTask, startingTask, stateForStatus, transition } from './tasks.js';

interface OpenQuestion {
  taskId: string;
  resolve: (r: ToolResult) => void;
  timer: NodeJS.Timeout;
}

export interface TaskBackendDeps {
  store: Store;
  /** The supervisor's controls: steering, cancel, pause/resume, status. */
  supervisor: SupervisorPort;
  /** The durable accept (resolves once the inbox row, and the task it starts, are committed). */
  accept(input: AcceptInput): Promise<Accepted>;
  log: Logger;
  now(): number;
  /** Starts a drain (operator command `drain`). */
  drain(): void;
  /** `agent.wake_on` and `agent.on_workflow_finished` (default: the seed's). */
  wake?: Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'>;
}

const SEED_WAKE: Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'> = {
  wake_on: ['a2a_message', 'human_reply', 'workflow_failed'],
  on_workflow_finished: 'ignore',
};

/**
 * Built after the supervisor, with a narrow port to it; the supervisor reaches the backend only through the
 * runtime's task slot (runtime/taskSlot.ts), so neither is half-built while the other is constructed.
 */
export class TaskBackend implements A2aBackend, TaskHooks {
  private readonly watchers = new Map<string, Set<(u: TaskUpdate) => void>>();
  private readonly questions = new Map<string, OpenQuestion>();
  /** Tasks whose turn has not ended, by inbox event: activity and engine events reach their watchers in order. */
  private readonly live = new Map<string, TaskRecord>();
  private listening = false;

  constructor(private readonly deps: TaskBackendDeps) {}

  /** At start (the supervisor's restore): rebuild task records a crash lost between the inbox and task writes. */
  async recover(pending: readonly InboxEvent[]): Promise<void> {
    for (const ev of pending) await this.taskOf(ev);
  }

  /** The task an event starts with (committed with the event by the supervisor's accept), or null. */
  readonly taskFor = startingTask;

  /** The task an accepted event answers; rebuilt (and saved) when an older store lost it after the inbox write. */
  private async taskOf(ev: InboxEvent): Promise<TaskRecord | null> {
    const t = ev.payload.task;
    if (!t) return null;
    const existing = await this.deps.store.tasks.get(t.id);
    if (existing) return existing;
    const task = this.taskFor(ev);
    if (task) await this.deps.store.tasks.save(task);
    return task;
  }

  /** A person can be asked only while the listener is up. */
  setListening(on: boolean): void {
    this.listening = on;
  }

  get humanChannel(): boolean {
    return this.listening;
  }

  async send(principal: Principal, req: SendRequest): Promise<TaskRecord> {
    if (req.command) return this.command(principal, req);
    if (req.taskId !== undefined) return this.continueTask(principal, req.taskId, req);
    if (req.text.trim() === '') throw new BackendError('invalid_params', 'the message has no text');
    const contextId = req.contextId ?? `ctx-${newUlid(this.deps.now()).toLowerCase()}`;
    return this.newMessage(principal, contextId, conversationFor(principal, contextId), req);
  }

  /** A message that starts a turn (or, when wake_on leaves out a2a_message, is only noted); `agentd/mode` first. */
  private newMessage(principal: Principal, contextId: string, conversation: string, req: SendRequest) {
    this.applyMode(principal, conversation, req.metadata);
    if (!a2aMessageWakes(this.wake)) {
      const note = a2aMessageNote(principal.id, req.text);
      return this.noted(principal, contextId, conversation, note, 'noted; the agent reads it on its next turn');
    }
    return this.accept(principal, contextId, conversation, req);
  }

  /** `agentd/mode` metadata switches the conversation's mode before the message is accepted (its turn runs in it). */
  private applyMode(principal: Principal, conversation: string, metadata: Record<string, unknown> | undefined): void {
    const mode = metadata?.['agentd/mode'];
    if (mode === undefined) return;
    if (mode !== 'plan' && mode !== 'execute') {
      throw new BackendError('invalid_params', 'metadata agentd/mode: expected plan or execute');
    }
    try {
      this.deps.supervisor.steering.setMode(conversation, principal.id, mode);
    } catch (err) {
      throw new BackendError('invalid_params', describeError(err));
    }
  }

  private get wake(): Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'> {
    return this.deps.wake ?? SEED_WAKE;
  }

  /** Leaves a durable `[note]` in the conversation for its next turn. */
  private noteIn(principal: Principal, conversation: string, note: string): void {
    try {
      this.deps.supervisor.steering.noteFor(conversation, principal.id, note);
    } catch (err) {
      if (err instanceof BackendError) throw err;
      throw new BackendError('invalid_params', describeError(err));
    }
  }

  /** Leaves `note` in the conversation (no turn) and records a completed task that says so. */
  private async noted(principal: Principal, contextId: string, conversation: string, note: string, reply: string) {
    this.noteIn(principal, conversation, note);
    const now = this.deps.now();
    const base = newTask({
      id: newUlid(now),
      context_id: contextId,
      conversation,
      principal: principal.id,
      inbox_event: null,
      now,
    });
    const done = transition(base, 'completed', now, { result: reply, message: reply }) ?? base;
    await this.save(done);
    return done;
  }

  async settled(principal: Principal, taskId: string, signal: AbortSignal): Promise<TaskRecord | null> {
    const task = await this.getTask(principal, taskId);
    if (!task) throw new BackendError('not_found', 'task not found');
    if (isSettled(task)) return task;
    if (signal.aborted) return null;
    return new Promise((resolve) => {
      const finish = (value: TaskRecord | null): void => {
        off();
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = (): void => finish(null);
      const off = this.subscribe(taskId, (u) => {
        if (u.kind === 'task' && isSettled(u.task)) finish(u.task);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Tasks with someone following them (streams, blocking sends): what a caller that went away must not leave. */
  get followedTasks(): number {
    return this.watchers.size;
  }

  async getTask(principal: Principal, taskId: string): Promise<TaskRecord | null> {
    const task = await this.deps.store.tasks.get(taskId);
    return task && owns(principal, task) ? this.remember(task) : null;
  }

  listTasks(principal: Principal, filter: { contextId?: string; limit: number }): Promise<TaskRecord[]> {
    const who = principal.role === 'operator' ? null : principal.id;
    const query = {
      principal: who,
      limit: filter.limit,
      ...(filter.contextId ? { context_id: filter.contextId } : {}),
    };
    return this.deps.store.tasks.list(query);
  }

  async cancelTask(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = await this.getTask(principal, taskId);
    if (!task) throw new BackendError('not_found', 'task not found');
    if (isTerminal(task.state)) throw new BackendError('not_cancelable', `task is already ${task.state}`);
    const canceled = transition(task, 'canceled', this.deps.now(), { message: 'canceled by the caller' });
    if (!canceled) throw new BackendError('not_cancelable', `task is already ${task.state}`);
    await this.save(canceled);
    this.closeQuestion(taskId, { result: 'the task was canceled', is_error: true });
    if (task.inbox_event) this.deps.supervisor.cancelEvent(task.inbox_event, 'task canceled over A2A');
    return canceled;
  }

  async watch(principal: Principal, taskId: string, onUpdate: (u: TaskUpdate) => void): Promise<(() => void) | null> {
    if (!(await this.getTask(principal, taskId))) return null;
    return this.subscribe(taskId, onUpdate);
  }

  // ---- TaskHooks (called by the supervisor) ----

  async taskForFold(eventId: string, outcome: InboxOutcome): Promise<TaskRecord | null> {
    const task = await this.deps.store.tasks.forEvent(eventId);
    if (!task) return null;
    const message = outcome.reply || outcome.error || null;
    const patch = { message, result: outcome.status === 'completed' ? outcome.reply : null, question: null };
    return transition(task, stateForStatus(outcome.status), this.deps.now(), patch);
  }

  afterFold(task: TaskRecord): void {
    this.notify(task);
  }

  onActivity(eventId: string, activity: Record<string, unknown>): void {
    this.toWatchers(eventId, (task) => ({ kind: 'activity', task, activity }));
  }

  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void {
    this.toWatchers(eventId, (task) => ({ kind: 'engine', task, type, fields }));
  }

  /** Tells the watchers of the event's task, at once and in order (a live task is known by its event). */
  private toWatchers(eventId: string, update: (task: TaskRecord) => TaskUpdate): void {
    const task = this.live.get(eventId);
    if (task) for (const w of this.watchers.get(task.id) ?? []) w(update(task));
  }

  /** Keeps the newest record of a task whose turn is still to end, by its inbox event (the live feed's lookup). */
  private remember(task: TaskRecord): TaskRecord {
    if (task.inbox_event === null) return task;
    if (isTerminal(task.state)) this.live.delete(task.inbox_event);
    else this.live.set(task.inbox_event, task);
    return task;
  }

  async askHuman(ask: HumanAsk): Promise<ToolResult> {
    const task = await this.deps.store.tasks.forEvent(ask.eventId);
    if (!task || isTerminal(task.state)) {
      return { result: 'ask_human: this turn has no task a person could answer', is_error: true };
    }
    // A turn replayed after a restart asks again; an answer given meanwhile to the same question is handed over.
    const early = task.question?.answer;
    if (early !== undefined && task.question?.text === ask.question) {
      const settled = transition(task, 'working', this.deps.now(), { question: null, message: null });
      if (settled) await this.save(settled);
      this.deps.log.info('a2a.answer.replayed', { task: task.id });
      return { result: { reply: early, timed_out: false }, is_error: false };
    }
    const question = {
      id: newUlid(this.deps.now()),
      text: ask.question,
      ...(ask.schema ? { schema: ask.schema } : {}),
    };
    const waiting = transition(task, 'input_required', this.deps.now(), { message: ask.question, question });
    if (waiting) await this.save(waiting);
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => void this.questionTimedOut(task.id),
        Math.max(0, Math.min(ask.timeoutAt - this.deps.now(), 2_147_483_647)),
      );
      this.questions.set(task.id, { taskId: task.id, resolve, timer });
    });
  }

  // ---- internals ----

  /**
   * Accepts the message and records its task. A retry of a message already accepted (same caller, same A2A
   * messageId) gets that message's task back: no second event, no second turn (the inbox's idempotency key).
   */
  private async accept(principal: Principal, contextId: string, conversation: string, req: SendRequest) {
    const now = this.deps.now();
    const taskId = newUlid(now);
    const { record, created } = await this.deps.accept({
      context_id: conversation,
      text: req.text,
      principal: principal.id,
      task: { id: taskId, context_id: contextId },
      ...(req.messageId ? { dedupe_key: `a2a:${req.messageId}` } : {}),
    });
    // The task was committed with the event (taskFor); a retry gets the one its first send committed.
    const task = await this.taskOf(record);
    if (!task)
      throw new BackendError('invalid_params', `message ${req.messageId} was already used for another request`);
    const fields = { task: task.id, state: task.state, principal: task.principal };
    this.deps.log.info('a2a.task', created ? fields : { ...fields, replayed: true });
    if (created) this.notify(task);
    return this.remember(task);
  }

  /** A message naming an existing task: the answer to its open question, or a new message in its conversation. */
  private async continueTask(principal: Principal, taskId: string, req: SendRequest): Promise<TaskRecord> {
    const { text } = req;
    const task = await this.getTask(principal, taskId);
    if (!task) throw new BackendError('not_found', 'task not found');
    if (task.state === 'input_required') {
      const open = this.questions.has(taskId);
      // No turn waits after a restart: the answer is kept on the task, durably, for the replayed turn's question.
      const question = open || task.question === null ? null : { ...task.question, answer: text };
      const working = transition(task, 'working', this.deps.now(), { question, message: null }) ?? task;
      await this.save(working);
      if (open) this.closeQuestion(taskId, { result: { reply: text, timed_out: false }, is_error: false });
      return working;
    }
    if (isTerminal(task.state)) {
      return this.newMessage(principal, task.context_id, task.conversation, req);
    }
    // A reply while nothing is asked (the question timed out, or none was asked) is kept for the next turn.
    const wake = humanReplyWake({ conversation: task.conversation, taskId, text }, this.wake);
    if (wake.kind === 'ignore') {
      throw new BackendError('invalid_params', `task ${task.id} is ${task.state}; send a new message instead`);
    }
    this.noteIn(principal, task.conversation, wake.text);
    return task;
  }

  private async command(principal: Principal, req: SendRequest): Promise<TaskRecord> {
    const op = req.command?.op ?? '';
    const now = this.deps.now();
    const conversation = req.contextId ? conversationFor(principal, req.contextId) : null;
    const base = newTask({
      id: newUlid(now),
      context_id: req.contextId ?? 'agentd',
      conversation: conversation ?? 'agentd',
      principal: principal.id,
      inbox_event: null,
      now,
    });
    let result: unknown;
    try {
      const deps = { supervisor: this.deps.supervisor, drain: this.deps.drain, conversation };
      result = runCommand(principal, op, req.command?.args ?? {}, deps);
    } catch (err) {
      if (err instanceof BackendError) throw err;
      throw new BackendError('invalid_params', describeError(err));
    }
    const done = transition(base, 'completed', now, { result: JSON.stringify(result), message: op }) ?? base;
    await this.save(done);
    return done;
  }

  /** Nobody answered in time: the turn goes on without an answer, and the task is working again. */
  private async questionTimedOut(taskId: string): Promise<void> {
    this.closeQuestion(taskId, { result: { reply: null, timed_out: true }, is_error: false });
    const task = await this.deps.store.tasks.get(taskId);
    const working = task && transition(task, 'working', this.deps.now(), { question: null, message: null });
    if (working) await this.save(working);
  }

  private closeQuestion(taskId: string, answer: ToolResult): void {
    const open = this.questions.get(taskId);
    if (!open) return;
    clearTimeout(open.timer);
    this.questions.delete(taskId);
    open.resolve(answer);
  }

  private async save(task: TaskRecord): Promise<void> {
    await this.deps.store.tasks.save(task);
    this.deps.log.info('a2a.task', { task: task.id, state: task.state, principal: task.principal });
    this.notify(task);
  }

  private notify(task: TaskRecord): void {
    this.remember(task);
    for (const w of this.watchers.get(task.id) ?? []) w({ kind: 'task', task });
  }

  private subscribe(taskId: string, onUpdate: (u: TaskUpdate) => void): () => void {
    const set = this.watchers.get(taskId) ?? new Set();
    set.add(onUpdate);
    this.watchers.set(taskId, set);
    return () => {
      set.delete(onUpdate);
      if (set.size === 0) this.watchers.delete(taskId);
    };
  }
}

/** The operator names conversations directly; anyone else's context ids are their own namespace (RFC 0043). */
export function conversationFor(principal: Principal, contextId: string): string {
  return principal.role === 'operator' ? contextId : `${principal.id}/${contextId}`;
}

function owns(principal: Principal, task: TaskRecord): boolean {
  return principal.role === 'operator' || task.principal === principal.id;
}

function isSettled(task: TaskRecord): boolean {
  return isTerminal(task.state) || task.state === 'input_required';
}
