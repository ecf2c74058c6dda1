// What the task backend tells the client feed (issue 18 item 1): tasks' states, the messages of a conversation
// (the caller's, the agent's reply, an answer), questions waiting, a turn's activity, tool cards, plan checklist
// changes and the instance's pause/drain state. Builds entries only; the FeedHub numbers and stores them.
import { AUDIENCE_ALL, type FeedEntry } from '../domain/feed.js';
import type { Goal } from '../domain/goal.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import type { FeedSink } from './feedHub.js';
import { type BudgetState, budgetRecheckIn, budgetStateOf, clip } from './feedPolicy.js';

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
/** A tool card's argument summary and result preview (the feed is not the transcript). */
const ARGS_CHARS = 200;
const RESULT_CHARS = 500;
/** Instance commands whose effect every client shows. */
const INSTANCE_OPS = new Set(['pause', 'resume', 'drain']);
/** How many conversations' last published goal are remembered (the oldest is forgotten first). */
const GOALS_KEPT = 1_000;
/** How long past a window's reset the budget is looked at again (ms). */
const RECHECK_SLACK_MS = 50;
/** How many running task-less turns are remembered (the oldest is forgotten first). */
const TURNS_KEPT = 1_000;
/** A failed task-less turn's error, as its end shows it. */
const ERROR_CHARS = 500;

/** What the feed reads of the conversations: a loaded one's goal, and whose it is. */
export interface FeedConversations {
  goalOf(conversation: string): Goal | null;
  /** The conversation's principal; null = nobody's (the operator's to see) or not loaded. */
  ownerOf(conversation: string): string | null;
}

/** A running turn no A2A task follows: the ids its activity, tool cards and end carry, and who sees them. */
interface TaskLessTurn {
  owner: string | null;
  ids: Record<string, string>;
}

export class TaskFeed {
  /** Live tasks by inbox event: a turn's activity names its event, the feed names the task and its owner. */
  private readonly byEvent = new Map<string, TaskRecord>();
  /** The last state published per task that may still change: a repeated notify adds nothing. */
  private readonly published = new Map<string, string>();
  /** The instance budget's state last published (undefined = not yet looked at). */
  private budget: BudgetState | null | undefined;
  /** Looks at the budget again when its spent window resets, so clients see `ok` without a task change. */
  private recheck: ReturnType<typeof setTimeout> | null = null;
  /** Each conversation's goal as last published (objective and status): a goal that did not change adds nothing. */
  private readonly goals = new Map<string, string>();
  /** Running turns without a task (wake notes, timers, workflow agent steps, deliveries), by inbox event. */
  private readonly turns = new Map<string, TaskLessTurn>();

  constructor(
    private readonly sink: FeedSink,
    /** The instance's state as `status` reports it (paused, draining, running turns, queued). */
    private readonly instance: () => Record<string, unknown>,
    private readonly clock: () => number = Date.now,
    /** The loaded conversations (steering); absent = goals only by goal commands, task-less turns the operator's. */
    private readonly conversations?: FeedConversations,
  ) {}

  /** Stops the budget's recheck timer. */
  close(): void {
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = null;
  }

  /** A task was saved or changed: its state, and a question it now asks or the reply it now carries. */
  task(task: TaskRecord): void {
    const mark = markOf(task);
    const terminal = TERMINAL.has(task.state);
    if (this.published.get(task.id) === mark) {
      // A fold committed this end with its entries (folded): streams read them from the store now.
      if (!terminal) return;
      this.published.delete(task.id);
      this.sink.committed();
      this.budgetChanged();
      return;
    }
    if (terminal) this.published.delete(task.id);
    else this.published.set(task.id, mark);
    if (task.inbox_event !== null) {
      if (terminal) this.byEvent.delete(task.inbox_event);
      else this.byEvent.set(task.inbox_event, task);
    }
    for (const entry of entriesOf(task)) this.sink.publish(entry);
    if (terminal) this.goalMoved(task.conversation, task.principal);
    this.budgetChanged();
  }

  /**
   * A conversation's goal was set or cleared (or its status moved): its objective and status, for the header
   * (issue 18 Build item 3). Published when it differs from the last one published for that conversation.
   */
  goal(conversation: string, principal: string | null, goal: Goal | null): void {
    const shown = goal === null ? null : { objective: goal.objective, status: goal.status };
    const mark = JSON.stringify(shown);
    const last = this.goals.get(conversation);
    if (last === mark) return;
    this.goals.delete(conversation);
    this.goals.set(conversation, mark);
    if (this.goals.size > GOALS_KEPT) this.goals.delete(this.goals.keys().next().value as string);
    // The conversation's owner hears it whoever set it (the operator may steer a user's conversation).
    const owner = this.ownerOf(conversation) ?? principal;
    const data = { op: 'goal', ...ownerIds(conversation, owner), goal: shown };
    this.sink.publish({ kind: 'state', audience: owner, data });
  }

  /** After a turn of the conversation ended: its goal's status may have moved (achieved, stuck, stopped). */
  private goalMoved(conversation: string, principal: string | null): void {
    if (!this.conversations) return;
    let goal: Goal | null;
    try {
      goal = this.conversations.goalOf(conversation);
    } catch {
      return; // not loaded (evicted): a client reads it with the conversation's history
    }
    if (goal !== null || this.goals.has(conversation)) this.goal(conversation, principal, goal);
  }

  /**
   * The entries of a task's end that its fold commits in its own transaction, so a crash right after the fold
   * loses none of them; the task's later notify (afterFold) publishes nothing twice.
   */
  folded(task: TaskRecord, now: number): FeedEntry[] {
    this.published.set(task.id, markOf(task));
    const entries = entriesOf(task);
    if (task.inbox_event !== null) {
      this.byEvent.delete(task.inbox_event);
      const turn = this.turns.get(task.inbox_event);
      this.turns.delete(task.inbox_event);
      // The turn ends as its task did: a failed or canceled turn shows its end, not `completed`.
      const end = turnEnd(task.state, task.message);
      if (turn) entries.push({ kind: 'turn', audience: turn.owner, data: { ...turn.ids, ...end } });
    }
    return entries.map((entry) => ({ ts: now, ...entry }));
  }

  /**
   * The entries of a turn no A2A task follows, committed with its fold: its message and its reply, in the
   * conversation's feed for its owner (the operator sees all). Keyed by `turn` (the inbox event) where a task's
   * entries carry `task`.
   */
  turnFolded(event: InboxEvent, outcome: InboxOutcome, owner: string | null, now: number): FeedEntry[] {
    const ctx = event.payload.context_id;
    const ids = { turn: event.id, ...ownerIds(ctx, owner), source: event.kind };
    const entries: FeedEntry[] = [
      { ts: now, kind: 'message', audience: owner, data: { ...ids, role: 'user', text: event.payload.text } },
    ];
    if (outcome.reply !== '') {
      entries.push({ ts: now, kind: 'message', audience: owner, data: { ...ids, role: 'agent', text: outcome.reply } });
    }
    // Its end closes its working row, and a failure shows as an error row (the feed's only word of it).
    this.turns.delete(event.id);
    const end = turnEnd(outcome.status, outcome.error);
    entries.push({ ts: now, kind: 'turn', audience: owner, data: { ...ids, ...end } });
    // A goal's own continuation turns run without a task: their end is where its status moves.
    this.goalMoved(ctx, owner);
    return entries;
  }

  /** A fold committed entries without a task: live streams read them from the store. */
  committed(): void {
    this.sink.committed();
  }

  /** The caller's own message, once accepted (a retry publishes nothing again: the caller saw it). */
  userMessage(task: TaskRecord, text: string): void {
    const data = { ...idsOf(task), role: 'user', text };
    this.sink.publish({ kind: 'message', audience: task.principal, data });
  }

  /** A person answered the task's question. */
  answer(task: TaskRecord, text: string): void {
    const data = { ...idsOf(task), text };
    this.sink.publish({ kind: 'answer', audience: task.principal, data });
  }

  /** A turn's activity changed (phase, tool or round): for the task's owner, or a task-less turn's (turnOf). */
  activity(eventId: string, activity: Record<string, unknown>): void {
    const task = this.byEvent.get(eventId);
    if (task) {
      this.sink.publish({ kind: 'activity', audience: task.principal, data: { ...activity, ...idsOf(task) } });
      return;
    }
    const turn = this.turnOf(eventId, activity['ctx']);
    this.sink.publish({ kind: 'activity', audience: turn.owner, data: { ...activity, ...turn.ids } });
  }

  /**
   * A turn no task follows, as first seen running: its owner is its conversation's (not only the operator's), and
   * a `turn` event tells clients it runs, so its activity and tool cards have a row to land in.
   */
  private turnOf(eventId: string, ctx: unknown): TaskLessTurn {
    const known = this.turns.get(eventId);
    if (known) return known;
    const conversation = typeof ctx === 'string' ? ctx : '';
    const owner = this.ownerOf(conversation);
    const turn = { owner, ids: { turn: eventId, ...ownerIds(conversation, owner) } };
    this.turns.set(eventId, turn);
    if (this.turns.size > TURNS_KEPT) this.turns.delete(this.turns.keys().next().value as string);
    this.sink.publish({ kind: 'turn', audience: owner, data: { ...turn.ids, state: 'working' } });
    return turn;
  }

  private ownerOf(conversation: string): string | null {
    try {
      return this.conversations?.ownerOf(conversation) ?? null;
    } catch {
      return null;
    }
  }

  /** A tool card (a finished call) or a plan checklist change; body text and the rest stay on the task stream. */
  engine(eventId: string, type: string, fields: Record<string, unknown>): void {
    if (type !== 'tool_card' && type !== 'checklist') return;
    const task = this.byEvent.get(eventId);
    const turn = task ? null : this.turnOf(eventId, fields['ctx']);
    const ids = task ? idsOf(task) : (turn as TaskLessTurn).ids;
    const audience = task ? task.principal : (turn as TaskLessTurn).owner;
    if (type === 'tool_card') {
      const card = {
        call_id: fields['id'],
        name: fields['tool'],
        args: clip(JSON.stringify(fields['arguments'] ?? {}), ARGS_CHARS),
        status: fields['is_error'] === true ? 'error' : 'ok',
        result: clip(String(fields['result'] ?? ''), RESULT_CHARS),
        ms: fields['ms'],
      };
      this.sink.publish({ kind: 'tool', audience, data: { ...ids, ...card } });
    } else if (type === 'checklist') {
      this.sink.publish({ kind: 'plan', audience, data: { ...ids, op: fields['op'], progress: fields['progress'] } });
    }
  }

  /**
   * After an instance command (pause, resume, drain) or the start of a drain: everyone hears the op and the
   * paused/draining flags; the full status (turns, queues, conversations) is the operator's view only.
   */
  instanceChanged(op: string): void {
    if (!INSTANCE_OPS.has(op)) return;
    const state = this.instanceNow();
    this.sink.publish({ kind: 'state', audience: AUDIENCE_ALL, data: { op, ...this.flagsOf(state) } });
    if (Object.keys(state).length > 0) this.sink.publish({ kind: 'state', audience: null, data: { op, ...state } });
  }

  /**
   * Publishes the instance budget's state (op `budget`, with the flags) when it differs from the last one: looked
   * at after each task change, since a fold's charge spends a window and a new turn's admission meets it.
   */
  private budgetChanged(): void {
    const state = this.instanceNow();
    const budget = budgetStateOf(state['budget']);
    this.armRecheck(state['budget']);
    if (budget === (this.budget ?? null)) return;
    this.budget = budget;
    this.sink.publish({ kind: 'state', audience: AUDIENCE_ALL, data: { op: 'budget', ...this.flagsOf(state) } });
  }

  /** One timer at the spent window's reset (none while nothing is spent): no polling. */
  private armRecheck(summary: unknown): void {
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = null;
    const wait = budgetRecheckIn(summary, this.clock());
    if (wait === null) return;
    // A little past the reset: the ledger rolls its window on the first look at or after it.
    this.recheck = setTimeout(() => this.budgetChanged(), wait + RECHECK_SLACK_MS);
    this.recheck.unref?.();
  }

  /** What every client may see of the instance: paused, draining, and the budget's state when one is set. */
  private flagsOf(state: Record<string, unknown>): Record<string, unknown> {
    const budget = budgetStateOf(state['budget']);
    const flags = { paused: state['paused'] === true, draining: state['draining'] === true };
    return budget === null ? flags : { ...flags, budget };
  }

  private instanceNow(): Record<string, unknown> {
    try {
      return this.instance();
    } catch {
      // Before the restore finished the supervisor answers nothing; the op alone still tells clients.
      return {};
    }
  }
}

/** A user principal's conversations are `<principal>/<context id>` (tasks.ts conversationFor); others as named. */
function contextIdOf(conversation: string, owner: string | null): string {
  return owner !== null && conversation.startsWith(`${owner}/`) ? conversation.slice(owner.length + 1) : conversation;
}

/**
 * The ids a conversation's entry carries: `context_id` is relative to its owner, so the operator (who sees every
 * principal's entries) tells two principals' `x` apart by `principal` and the stored `conversation` it names.
 */
function ownerIds(conversation: string, owner: string | null): Record<string, string> {
  const ids = { context_id: contextIdOf(conversation, owner), conversation };
  return owner === null ? ids : { ...ids, principal: owner };
}

/**
 * A task's ids on the feed: the task, its turn (inbox event) when it has one, and its conversation's ids. A client
 * keys messages by turn: the stored history names it too, even after retention pruned the task.
 */
function idsOf(task: TaskRecord): Record<string, string> {
  const ids = {
    task: task.id,
    context_id: task.context_id,
    conversation: task.conversation,
    principal: task.principal,
  };
  return task.inbox_event === null ? ids : { ...ids, turn: task.inbox_event };
}

const markOf = (task: TaskRecord): string => `${task.state}:${task.updated}:${task.question?.id ?? ''}`;

/** What a task's state shows on the feed: the state, a question it asks, the reply it carries. */
function entriesOf(task: TaskRecord): Array<Omit<FeedEntry, 'ts'>> {
  const audience = task.principal;
  const ids = idsOf(task);
  const entries: Array<Omit<FeedEntry, 'ts'>> = [
    { kind: 'task', audience, data: { ...ids, state: task.state, message: task.message } },
  ];
  if (task.state === 'input_required' && task.question) {
    // `rejected`: why the previous answer was refused; the clients show it (agentd/question.rejected on the wire).
    const { id, text, schema, rejected } = task.question;
    const question = { id, text, schema, ...(rejected === undefined ? {} : { rejected }) };
    entries.push({ kind: 'question', audience, data: { ...ids, question } });
  }
  if (task.state === 'completed' && task.inbox_event !== null && task.result !== null) {
    entries.push({ kind: 'message', audience, data: { ...ids, role: 'agent', text: task.result } });
  }
  return entries;
}

/** A turn's end on the feed: completed, or its state and error (a failed or canceled turn's error row). */
function turnEnd(state: string, error: string | null | undefined): Record<string, string> {
  if (state === 'completed') return { state };
  return { state, message: clip(error ?? state, ERROR_CHARS) };
}

/** The goal a `goal.set` command's task answers with (its result is the command's JSON answer). */
export function goalIn(task: TaskRecord): Goal | null {
  try {
    return (JSON.parse(task.result ?? 'null') as { goal?: Goal } | null)?.goal ?? null;
  } catch {
    return null;
  }
}
