// A2A tasks over the supervisor: each caller's messages go to conversations it owns, a task's state follows its
// turn, a person answers questions through the task, and operators run commands. The listener only maps wire types.
import type { AgentConfig } from '../config/types.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import type { Logger } from '../obs/log.js';
import { OpenQuestions, STOPPING } from '../runtime/openQuestions.js';
import type { SupervisorPort } from '../runtime/producer.js';
import { a2aMessageNote, a2aMessageWakes, humanReplyWake } from '../steering/wakeNotes.js';
import type { Accepted, Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { AcceptInput, EngineEventType, HumanAsk, TaskHooks } from '../supervisor/supervisorOptions.js';
import type { ToolResult } from '../tools/internalTools.js';
import type { A2aStarts } from '../triggers/a2aStarts.js';
import { earlyAnswer } from './answerCheck.js';
import type { A2aBackend, Principal, SendRequest, TaskQuery, TaskUpdate } from './backend.js';
import { BackendError } from './backend.js';
import { applyMode, type CommandDeps, commandTask, isReadOnly, noteIn } from './commands.js';
import { FleetOperations } from './fleetOperations.js';
import { messageWaitTask } from './messageWaitTask.js';
import { PerKey } from './perKey.js';
import { a2aDedupeKey, earlierTask, type NotedMessage, noteKey, noteTaskId } from './sentMessages.js';
import { followStarts, type StartRunDeps, startRunTask } from './startRunTask.js';
import { endStepTask, openStepTask } from './stepTasks.js';
import { answerTask } from './taskAnswer.js';
import { cancelByOrigin, type TaskCancelDeps } from './taskCancel.js';
import { goalIn, type TaskFeed } from './taskFeed.js';
import { TaskRecords } from './taskRecords.js';
import {
  consumed,
  conversationFor,
  endedTask,
  isTerminal,
  notedTask,
  owns,
  startingTask,
  transition,
} from './tasks.js';
import { CANCEL_FOLD_MS, SEED_WAKE, type TaskWatchers } from './taskWatchers.js';

/** What a question's wait hears when its task is canceled. */
const CANCELED_QUESTION = { result: 'the task was canceled', is_error: true } as const;

export interface TaskBackendDeps extends Pick<CommandDeps, 'reload' | 'pairing'> {
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
  /** Resolves once the runtime's restore has queued what was pending; callers are served only after it. */
  ready?: Promise<void>;
  /** The client feed (issue 18): told every task change, message, answer, activity and instance command. */
  feed?: TaskFeed;
  /** How long a cancel waits for the cancelled turn's fold; default CANCEL_FOLD_MS. */
  cancelWaitMs?: number;
  /** The `a2a` start nodes: a new message one of them takes starts a workflow run, not a turn. */
  starts?: A2aStarts;
}

/**
 * Built after the supervisor, with a narrow port to it; the supervisor reaches the backend only through the
 * runtime's task slot (runtime/taskSlot.ts), so neither is half-built while the other is constructed.
 */
export class TaskBackend implements A2aBackend, TaskHooks {
  private readonly records: TaskRecords;
  private readonly watchers: TaskWatchers;
  private readonly questions = new OpenQuestions();
  private readonly fleet: FleetOperations;
  private readonly perTask = new PerKey();
  private listening = false;
  private intake = true;

  constructor(private readonly deps: TaskBackendDeps) {
    this.records = new TaskRecords(deps);
    this.watchers = this.records.watchers;
    this.fleet = new FleetOperations(deps.store, this.questions, deps.log, deps.supervisor, deps.starts);
    this.fleet.start();
    if (deps.starts) followStarts(() => this.startDeps, deps.starts);
  }

  /** At start (the supervisor's restore): rebuild task records a crash lost between the inbox and task writes. */
  async recover(pending: readonly InboxEvent[]): Promise<void> {
    for (const ev of pending) await this.records.taskOf(ev);
  }

  /** The task an event starts with (committed with the event by the supervisor's accept), or null. */
  readonly taskFor = startingTask;

  /** A person can be asked only while the listener is up. */
  setListening(on: boolean): void {
    this.listening = on;
  }

  get humanChannel(): boolean {
    return this.listening && !this.questions.isClosed;
  }

  /**
   * Refuses new messages from now on (the agent drains): only an answer to an open question still gets through,
   * so a running turn can end. Commands, reads, watches and cancels keep working.
   */
  stopIntake(): void {
    if (this.intake) this.deps.feed?.instanceChanged('drain');
    this.intake = false;
  }

  /** The agent stops: every open question ends as cancelled (its turn sees a tool error) and no timer is left. */
  close(): void {
    this.intake = false;
    this.listening = false;
    this.questions.closeAll(STOPPING);
    this.fleet.stop();
  }

  async send(principal: Principal, req: SendRequest): Promise<TaskRecord> {
    await this.deps.ready;
    await this.deps.starts?.armed;
    if (req.taskId === undefined && !req.command && this.intake && this.deps.starts?.takesMessages) {
      const taken = await messageWaitTask(this.startDeps, this.deps.starts, principal, req);
      if (taken) return taken;
    }
    const start = req.taskId === undefined && this.intake ? this.startFor(principal, req) : null;
    if (start) return startRunTask(this.startDeps, start, principal, req);
    // Commands accept no inbox event: the operator can still ask for status while the agent drains.
    if (req.command) return this.command(principal, req);
    if (!this.intake && !(req.taskId !== undefined && this.questions.has(req.taskId))) {
      throw new BackendError('draining', 'the agent is draining and accepts no new messages; send again later');
    }
    if (req.taskId !== undefined) return this.continueTask(principal, req.taskId, req);
    if (req.text.trim() === '') throw new BackendError('invalid_params', 'the message has no text');
    const contextId = req.contextId ?? `ctx-${newUlid(this.deps.now()).toLowerCase()}`;
    return this.newMessage(principal, contextId, conversationFor(principal, contextId), req);
  }

  /**
   * A message that starts a turn (or, when wake_on leaves out a2a_message, is only noted); `agentd/mode` first. A
   * retry of one already sent gets its task back; quotas bind only a new message (they refuse in `admit`, which
   * counts the message until its accept settled and keeps its conversation in memory meanwhile).
   */
  private async newMessage(principal: Principal, contextId: string, conversation: string, req: SendRequest) {
    const earlier = await earlierTask(this.deps.store, principal.id, req.messageId);
    if (earlier) return this.records.replayed(earlier);
    const admission = await this.deps.supervisor.intake.admit(principal.id, conversation, req.text);
    try {
      applyMode(this.deps.supervisor, principal, conversation, req.metadata);
      if (!a2aMessageWakes(this.wake)) {
        const note = a2aMessageNote(principal.id, req.text);
        const reply = 'noted; the agent reads it on its next turn';
        return await this.noted({ principal, contextId, conversation, note, reply, messageId: req.messageId });
      }
      return await this.accept(principal, contextId, conversation, req);
    } finally {
      admission.release();
    }
  }

  /** The armed `a2a` start that takes this new message, if any (reference §3.7 step 2). */
  private startFor(principal: Principal, req: SendRequest) {
    if (!this.deps.starts?.size) return null;
    return this.deps.starts.match({ command: req.command?.op ?? null, role: principal.role });
  }

  private get startDeps(): StartRunDeps {
    const { store, log, now, supervisor } = this.deps;
    const admit = (p: string, c: string, text: string) => supervisor.intake.admit(p, c, text);
    return { store, records: this.records, log, now, admit };
  }

  private get wake(): Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'> {
    return this.deps.wake ?? SEED_WAKE;
  }

  /**
   * Leaves `note` in the conversation (no turn) and records a completed task that says so. With a messageId, the
   * task's id is derived from (principal, messageId): a retry finds that task and leaves no second note.
   */
  private async noted(n: NotedMessage): Promise<TaskRecord> {
    const { principal, contextId, conversation, note, reply, messageId } = n;
    const now = this.deps.now();
    const id = messageId === undefined ? newUlid(now) : noteTaskId(principal.id, messageId);
    const earlier = messageId === undefined ? null : await this.deps.store.tasks.get(id);
    if (earlier) return this.records.replayed(earlier);
    const done = notedTask({ id, context_id: contextId, conversation, principal: principal.id, now }, reply);
    // The key's claim (insert-if-absent, one store call) decides who notes: a concurrent retry, or one after its task
    // was pruned, finds it claimed and leaves nothing a second time. A crash after the claim loses the note (at most
    // once), never doubles it.
    const key = noteKey(id);
    if (messageId !== undefined && !(await this.deps.store.timers.remember(key, now))) {
      return this.records.replayed(done);
    }
    try {
      noteIn(this.deps.supervisor, principal, conversation, note);
    } catch (err) {
      // Refused (not the caller's conversation): nothing was noted, so a retry may try again.
      if (messageId !== undefined) await this.deps.store.timers.forget(key, Number.MAX_SAFE_INTEGER);
      throw err;
    }
    return this.records.save(done);
  }

  /** Follows the task before reading it, so an end that lands between the read and the wait is not missed. */
  settled(principal: Principal, taskId: string, signal: AbortSignal): Promise<TaskRecord | null> {
    return this.watchers.settled(taskId, () => this.getTask(principal, taskId), signal);
  }

  /** Tasks with someone following them (streams, blocking sends): what a caller that went away must not leave. */
  get followedTasks(): number {
    return this.watchers.followed;
  }

  async getTask(principal: Principal, taskId: string): Promise<TaskRecord | null> {
    await this.deps.ready;
    const task = await this.deps.store.tasks.get(taskId);
    return task && owns(principal, task) ? this.records.remember(task) : null;
  }

  async listTasks(principal: Principal, query: TaskQuery): Promise<{ tasks: TaskRecord[]; total: number }> {
    await this.deps.ready;
    const filter = { ...query, principal: principal.role === 'operator' ? null : principal.id };
    return { tasks: await this.deps.store.tasks.list(filter), total: await this.deps.store.tasks.count(filter) };
  }

  /**
   * Cancel really cancels (issue 18 item 5): waits for the cancelled turn's fold, which lands once its worker and MCP
   * servers are gone (cancel grace, then killpg) and alone sets CANCELED: never early, never flipped back; a turn that
   * completed first keeps its end. Past `cancelWaitMs` (a fold the store refuses) the task is answered as it stands.
   */
  async cancelTask(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = await this.getTask(principal, taskId);
    if (!task) throw new BackendError('not_found', 'task not found');
    if (isTerminal(task.state)) throw new BackendError('not_cancelable', `task is already ${task.state}`);
    const deps = { ...this.cancelDeps, store: this.deps.store, supervisor: this.deps.supervisor };
    const closeQuestion = () => this.questions.close(taskId, CANCELED_QUESTION);
    const ended = await cancelByOrigin(deps, task, principal.id, closeQuestion);
    return ended ?? (await this.getTask(principal, taskId)) ?? task;
  }

  private get cancelDeps(): TaskCancelDeps {
    const { now, starts } = this.deps;
    return { records: this.records, now, starts, waitMs: this.deps.cancelWaitMs ?? CANCEL_FOLD_MS };
  }

  async watch(principal: Principal, taskId: string, onUpdate: (u: TaskUpdate) => void): Promise<(() => void) | null> {
    if (!(await this.getTask(principal, taskId))) return null;
    return this.watchers.subscribe(taskId, onUpdate);
  }

  // ---- TaskHooks (called by the supervisor) ----
  async taskForFold(eventId: string, outcome: InboxOutcome): Promise<TaskRecord | null> {
    const task = await this.deps.store.tasks.forEvent(eventId);
    if (!task) return null;
    return endedTask(task, outcome, this.deps.now());
  }

  /** The feed's entries of the task's end, committed with the fold (issue 18: a crash cannot lose them). */
  readonly feedForFold = (task: TaskRecord) => this.deps.feed?.folded(task, this.deps.now()) ?? [];
  /** A turn without a task: its message and reply for the feed, committed with its fold (issue 18). */
  readonly feedForTurn = (event: InboxEvent, outcome: InboxOutcome, owner: string | null) =>
    this.deps.feed?.turnFolded(event, outcome, owner, this.deps.now()) ?? [];
  readonly feedCommitted = () => this.deps.feed?.committed();
  /** Tells watchers what the store holds: a cancel that landed before the fold's commit keeps its state. */
  afterFold(task: TaskRecord): void {
    const told = (stored: TaskRecord | null) => this.records.notify(stored ?? task);
    this.deps.store.tasks.get(task.id).then(told, () => told(null));
  }

  onActivity(eventId: string, activity: Record<string, unknown>): void {
    this.records.toWatchers(eventId, (task) => ({ kind: 'activity', task, activity }));
    this.deps.feed?.activity(eventId, activity);
  }

  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void {
    this.records.toWatchers(eventId, (task) => ({ kind: 'engine', task, type, fields }));
    this.deps.feed?.engine(eventId, type, fields);
  }

  async askHuman(ask: HumanAsk): Promise<ToolResult> {
    const task = await this.deps.store.tasks.forEvent(ask.eventId);
    if (!task || isTerminal(task.state)) {
      return { result: 'ask_human: this turn has no task a person could answer', is_error: true };
    }
    // A turn replayed after a restart asks again; an answer given meanwhile to the same question is handed over.
    const early = earlyAnswer(task.question, ask.question);
    if (early !== undefined) {
      const settled = transition(task, 'working', this.deps.now(), { question: null, message: null });
      if (settled) await this.records.save(settled);
      this.deps.log.info('a2a.answer.replayed', { task: task.id });
      return { result: { reply: early, timed_out: false }, is_error: false };
    }
    const question = {
      id: newUlid(this.deps.now()),
      text: ask.question,
      ...(ask.schema ? { schema: ask.schema } : {}),
    };
    if (this.questions.isClosed) return STOPPING;
    const waiting = transition(task, 'input_required', this.deps.now(), { message: ask.question, question });
    if (waiting) await this.records.save(waiting);
    const timedOut = () => void this.questionTimedOut(task.id);
    return this.questions.wait(task.id, ask.timeoutAt - this.deps.now(), timedOut, STOPPING);
  }

  /** A workflow `human` step's task (stepTasks.ts): the backend owns every task change. */
  readonly openStepTask: NonNullable<TaskHooks['openStepTask']> = (step) => openStepTask(this.startDeps, step);
  readonly endStepTask: NonNullable<TaskHooks['endStepTask']> = (...end) => endStepTask(this.startDeps, ...end);

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
      ...(req.messageId ? { dedupe_key: a2aDedupeKey(req.messageId) } : {}),
    });
    // The task was committed with the event (taskFor); a retry gets the one its first send committed.
    const task = await this.records.taskOf(record);
    if (!task)
      throw new BackendError('invalid_params', `message ${req.messageId} was already used for another request`);
    const fields = { task: task.id, state: task.state, principal: task.principal };
    this.deps.log.info('a2a.task', created ? fields : { ...fields, replayed: true });
    if (created) this.deps.feed?.userMessage(task, req.text);
    if (created) this.records.notify(task);
    return this.records.remember(task);
  }

  /** A message naming an existing task: the answer to its open question, or a new message in its conversation. */
  private async continueTask(principal: Principal, taskId: string, req: SendRequest): Promise<TaskRecord> {
    const found = await this.getTask(principal, taskId);
    if (!found) throw new BackendError('not_found', 'task not found');
    // One message per task at a time, on the task as stored then: a refused answer racing an accepted one must not
    // ask again a question already answered.
    const fresh = async () => (await this.deps.store.tasks.get(taskId)) ?? found;
    return this.perTask.run(taskId, async () => this.continueWith(principal, await fresh(), req));
  }

  private async continueWith(principal: Principal, task: TaskRecord, req: SendRequest): Promise<TaskRecord> {
    const { text, messageId } = req;
    if (messageId !== undefined && task.message_ids?.includes(messageId)) return this.records.replayed(task);
    // An answer, or a reply kept as a note, is a message too: message_bytes holds it (a new message's own check
    // follows in newMessage).
    this.deps.supervisor.intake.checkMessageBytes(principal.id, task.conversation, text);
    if (task.state === 'input_required') {
      const elsewhere = (ctx: string) => this.fleet.answeredHere(ctx);
      const deps = { ...this.deps, records: this.records, questions: this.questions, answeredElsewhere: elsewhere };
      return answerTask(deps, task, text, messageId);
    }
    if (isTerminal(task.state)) {
      return this.newMessage(principal, task.context_id, task.conversation, req);
    }
    // A reply while nothing is asked (the question timed out, or none was asked) is kept for the next turn.
    const wake = humanReplyWake({ conversation: task.conversation, taskId: task.id, text }, this.wake);
    if (wake.kind === 'ignore') {
      throw new BackendError('invalid_params', `task ${task.id} is ${task.state}; send a new message instead`);
    }
    noteIn(this.deps.supervisor, principal, task.conversation, wake.text);
    return messageId === undefined ? task : this.records.save(consumed(task, messageId));
  }

  private async command(principal: Principal, req: SendRequest): Promise<TaskRecord> {
    const conversation = req.contextId ? conversationFor(principal, req.contextId) : null;
    const replica = this.deps.store.fleet?.replica;
    const deps = { ...this.deps, conversation, now: this.deps.now(), ...(replica ? { replica } : {}) };
    const task = await commandTask(principal, req, deps);
    const op = req.command?.op ?? '';
    // Replicas: the operator's pause or resume holds for the fleet, whichever replica it reached.
    if (op === 'pause' || op === 'resume') this.fleet.controlled(op);
    if (op !== 'drain') this.deps.feed?.instanceChanged(op);
    if (conversation !== null && (op === 'goal.set' || op === 'goal.clear')) {
      this.deps.feed?.goal(conversation, principal.id, op === 'goal.set' ? goalIn(task) : null);
    }
    // A read (status, goal.get, …) answers with a task it never stores: reads leave nothing behind (issue 18).
    return isReadOnly(op) ? task : this.records.save(task);
  }

  /** Nobody answered in time: the turn goes on without an answer, and the task is working again. */
  private async questionTimedOut(taskId: string): Promise<void> {
    this.questions.close(taskId, { result: { reply: null, timed_out: true }, is_error: false });
    if (this.questions.isClosed) return; // the agent stopped meanwhile: its store may be closed
    const task = await this.deps.store.tasks.get(taskId);
    const working = task && transition(task, 'working', this.deps.now(), { question: null, message: null });
    if (working) await this.records.save(working);
  }
}
