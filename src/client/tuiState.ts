// The terminal UI's view of the daemon (issue 18 item 3), pure: feed events in, rows and chrome out. Rows are keyed
// by what they show (a task's message, a tool call, a question), so a replayed event never adds a second row. No
// I/O and no clock: elapsed time is rendered from `started_ms` by the caller.
import type { FeedMessage } from './feedReader.js';

export type RowKind = 'user' | 'agent' | 'tool' | 'question' | 'note' | 'error';

export interface Row {
  key: string;
  kind: RowKind;
  /** The view it belongs to (viewOf); null = every view shows it. */
  ctx: string | null;
  text: string;
  /** Another principal's row (the operator sees everyone's): whose it is, shown as its label. */
  by?: string;
  /** A tool card's arguments and result, shown when cards are expanded. */
  detail?: string;
}

export interface Question {
  task: string;
  ctx: string;
  text: string;
  /** The choices its schema allows (yes/no, an enum), else null: free text. */
  options: string[] | null;
  /** What each option sends (yes/no send true/false). */
  values: string[] | null;
}

/** The daemon's name and version (its agent card) and instance (`status`), for the header. */
export interface Identity {
  name: string;
  version: string;
  instance: string;
}

/** A conversation's goal as the header shows it. */
export interface GoalShown {
  objective: string;
  status: string;
}

export interface Working {
  task: string;
  phase: string;
  tool: string | null;
  started_ms: number;
}

export interface TuiState {
  /** The signed-in principal, once known: rows of any other are keyed and labelled as theirs (viewOf). */
  self?: string;
  rows: Row[];
  /** The conversation in view; null = all. */
  ctx: string | null;
  /** Non-terminal tasks by id, with their conversation (for /cancel and the working row). */
  active: Record<string, string>;
  /** Running turns no task follows (a wake note, a timer, a workflow step), keyed `turn:<event>`, with their view. */
  turns?: Record<string, string>;
  /** The newest activity of any running unit (what the TUI's working row shows). */
  working: Working | null;
  /** Each running unit's newest activity: when one ends, the row falls back to another still running (progress). */
  progress?: Record<string, Working>;
  question: Question | null;
  /** Each view's plan checklist state, from the feed's `plan` events (a conversation's own, never another's). */
  plans: Record<string, string>;
  paused: boolean;
  /** Who the daemon is (its card's name and version, its instance), re-read on every connection. */
  identity?: Identity;
  /** Each view's goal (objective and status) from its history and the feed; null = none. */
  goals?: Record<string, GoalShown | null>;
  /** The instance budget's state from the feed (`ok`, `waiting`, `degraded`, `refusing`); null = none set. */
  budget?: string | null;
  connection: { up: boolean; why?: string; ever: boolean };
  expanded: boolean;
  /** Rows scrolled back from the bottom (0 = following). */
  scroll: number;
}

const MAX_ROWS = 1_000;
const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

export function initialState(ctx: string | null): TuiState {
  return {
    rows: [],
    ctx,
    active: {},
    working: null,
    question: null,
    plans: {},
    paused: false,
    connection: { up: false, ever: false },
    expanded: false,
    scroll: 0,
  };
}

/** After a feed reload: the rows (loaded history included) stay; what was running is no longer known. */
export function afterReload(state: TuiState): TuiState {
  return { ...state, active: {}, turns: {}, working: null, progress: {}, question: null, plans: {} };
}

/** Adds a row unless one with its key exists (a replayed event changes nothing). */
export function addRow(state: TuiState, row: Row): TuiState {
  if (state.rows.some((r) => r.key === row.key)) return state;
  return { ...state, rows: [...state.rows, row].slice(-MAX_ROWS) };
}

/**
 * A conversation's stored messages (`conversation.get`, read when the view opens it), placed before the rows the
 * feed brought since. A stored message keyed by its turn (or, with none, its task) has the key the feed's row for
 * it has, so a message the feed already showed is not repeated; any other is keyed by its place.
 */
export function withHistory(
  state: TuiState,
  ctx: string,
  messages: ReadonlyArray<{ role: string; text: string; seq: number; task?: string; turn?: string }>,
): TuiState {
  const kept: Row[] = [];
  for (const m of messages) {
    const kind: RowKind = m.role === 'agent' ? 'agent' : 'user';
    const owner = m.turn === undefined ? m.task : `turn:${m.turn}`;
    const key = owner === undefined ? `hist:${ctx}:${m.seq}` : messageKey(owner, kind);
    if (!state.rows.some((r) => r.key === key) && !kept.some((r) => r.key === key))
      kept.push({ key, kind, ctx, text: m.text });
  }
  return { ...state, rows: [...kept, ...state.rows].slice(-MAX_ROWS) };
}

/** A task's (or a turn's) prompt or reply: one of each, whether the feed or the stored history brought it. */
function messageKey(owner: string, kind: RowKind): string {
  return `msg:${owner}:${kind}`;
}

/**
 * Tags each change of view (opening a conversation, a send that starts one): an answer to an older request is
 * stale, since the user chose another view after asking, and must not take the view back.
 */
export class ViewRequests {
  private last = 0;
  /** A new change of view; returns its tag. */
  next(): number {
    return ++this.last;
  }
  /** True while no later change of view was made. */
  current(tag: number): boolean {
    return tag === this.last;
  }
}

/** Choices from an ask's schema: boolean ⇒ yes/no; an enum ⇒ its values; a one-property object is unwrapped. */
export function choicesOf(schema: unknown): { options: string[]; values: string[] } | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as { type?: string; enum?: unknown[]; properties?: Record<string, unknown> };
  if (s.type === 'object' && s.properties && Object.keys(s.properties).length === 1) {
    return choicesOf(Object.values(s.properties)[0]);
  }
  if (s.type === 'boolean') return { options: ['yes', 'no'], values: ['true', 'false'] };
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const values = s.enum.map(String);
    return { options: values, values };
  }
  return null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/**
 * The view a feed event belongs to. Its `context_id` is relative to its owner, so another principal's `x` is not
 * the viewer's `x`: it is keyed by its stored conversation id, which is also the context id the operator addresses
 * it by (a2a/tasks.ts conversationFor), so a reply typed in that view goes to that conversation.
 */
export function viewOf(data: Record<string, unknown>, self: string | undefined): { ctx: string | null; by?: string } {
  const ctx = typeof data['context_id'] === 'string' ? data['context_id'] : null;
  const owner = data['principal'];
  if (self === undefined || typeof owner !== 'string' || owner === self) return { ctx };
  return { ctx: typeof data['conversation'] === 'string' ? data['conversation'] : `${owner}/${ctx ?? ''}`, by: owner };
}

/** Folds one feed event into the view. */
export function applyFeed(state: TuiState, e: FeedMessage): TuiState {
  const d = e.data;
  const task = str(d['task']);
  const { ctx, by } = viewOf(d, state.self);
  const label = by === undefined ? {} : { by };
  switch (e.kind) {
    case 'message': {
      const kind = d['role'] === 'agent' ? 'agent' : 'user';
      // Keyed by turn where one is named: the stored history names it even once retention pruned the task.
      const turn = d['turn'] === undefined ? task : `turn:${str(d['turn'])}`;
      return addRow(state, { key: messageKey(turn, kind), kind, ctx, text: str(d['text']), ...label });
    }
    case 'task':
      return onTask(state, task, ctx, str(d['state']), str(d['message']));
    case 'turn':
      return onTurn(state, `turn:${str(d['turn'])}`, ctx, str(d['state']), str(d['message']));
    case 'activity': {
      const unit = unitOf(d);
      const running = task ? task in state.active : unit !== '';
      if (!running) return state;
      // A task-less turn met first by its activity (the client attached while it ran) runs from then on.
      const turns = task ? state.turns : { ...state.turns, [unit]: ctx ?? '' };
      const phase = str(d['phase']);
      const working = {
        task: unit,
        phase,
        tool: (d['tool'] as string | null) ?? null,
        started_ms: Number(d['started_ms']),
      };
      return { ...state, ...(turns ? { turns } : {}), working, progress: { ...state.progress, [unit]: working } };
    }
    case 'tool': {
      const status = str(d['status']);
      const text =
        `${str(d['name'])} ${status === 'ok' ? '✓' : '✗'} ${d['ms'] === undefined ? '' : `${d['ms']}ms`}`.trim();
      const detail = `args: ${str(d['args'])}\nresult: ${str(d['result'])}`;
      const key = `tool:${unitOf(d)}:${str(d['call_id'])}`;
      return addRow(state, { key, kind: 'tool', ctx, text, detail, ...label });
    }
    case 'plan': {
      // A turn no task follows names its conversation as `ctx` (the operator's view of it).
      const view = ctx ?? str(d['ctx']);
      const progress = typeof d['progress'] === 'string' ? d['progress'] : JSON.stringify(d['progress'] ?? '');
      return { ...state, plans: { ...state.plans, [view]: `${str(d['op'])} ${progress}`.trim() } };
    }
    case 'question':
      return onQuestion(state, task, ctx ?? '', d['question'] as Parameters<typeof onQuestion>[3]);
    case 'answer':
      return addRow(
        { ...state, question: null },
        { key: `answer:${task}:${e.seq}`, kind: 'user', ctx, text: str(d['text']), ...label },
      );
    case 'state':
      if (d['op'] === 'goal')
        return ctx === null ? state : withGoal(state, ctx, (d['goal'] as GoalShown | null) ?? null);
      return {
        ...state,
        paused: d['paused'] === true,
        ...(typeof d['budget'] === 'string' ? { budget: d['budget'] } : {}),
      };
    default:
      return state;
  }
}

function onTask(state: TuiState, task: string, ctx: string | null, taskState: string, message: string): TuiState {
  const active = { ...state.active };
  if (TERMINAL.has(taskState)) delete active[task];
  else active[task] = ctx ?? '';
  let next: TuiState = { ...state, active };
  // A task asking a person is not working: the row says it waits for the answer (workingLine).
  if (TERMINAL.has(taskState) || taskState === 'input_required') next = stopped(next, task);
  if (taskState !== 'input_required' && state.question?.task === task) next.question = null;
  if (taskState === 'working' && ctx !== null) next = started(next, task);
  if (taskState === 'failed' || taskState === 'rejected' || taskState === 'canceled') {
    next = addRow(next, {
      key: `end:${task}`,
      kind: 'error',
      ctx,
      text: `${taskState}${message ? `: ${message}` : ''}`,
    });
  }
  return next;
}

/** What runs: a task's id, else a task-less turn's `turn:<event>`; '' for neither. */
function unitOf(d: Record<string, unknown>): string {
  const task = str(d['task']);
  if (task) return task;
  return d['turn'] === undefined ? '' : `turn:${str(d['turn'])}`;
}

/** A task-less turn started or ended: its working row, and an error row when it did not complete. */
function onTurn(state: TuiState, unit: string, ctx: string | null, turnState: string, message: string): TuiState {
  const turns = { ...state.turns };
  if (turnState === 'working') {
    turns[unit] = ctx ?? '';
    return started({ ...state, turns }, unit);
  }
  delete turns[unit];
  const next = stopped({ ...state, turns }, unit);
  if (turnState === 'completed') return next;
  return addRow(next, { key: `end:${unit}`, kind: 'error', ctx, text: `${turnState}${message ? `: ${message}` : ''}` });
}

/** A unit runs: it has progress (kept if known), and is the working row when nothing else is. */
function started(state: TuiState, unit: string): TuiState {
  const mine = state.progress?.[unit] ?? { task: unit, phase: 'working', tool: null, started_ms: Number.NaN };
  return { ...state, working: state.working ?? mine, progress: { ...state.progress, [unit]: mine } };
}

/** A unit stopped: its progress goes; a working row that was its falls back to the newest still running. */
function stopped(state: TuiState, unit: string): TuiState {
  const { [unit]: _gone, ...progress } = state.progress ?? {};
  const working = state.working?.task === unit ? (Object.values(progress).at(-1) ?? null) : state.working;
  return { ...state, working, progress };
}

/** The activity of a unit running in a view (the web UI's working row of one conversation), or null. */
export function workingIn(state: TuiState, here: (unit: string) => boolean): Working | null {
  if (state.working && here(state.working.task)) return state.working;
  return Object.values(state.progress ?? {}).find((w) => here(w.task)) ?? null;
}

function onQuestion(
  state: TuiState,
  task: string,
  ctx: string,
  q: { id?: string; text?: string; schema?: unknown; rejected?: unknown } | undefined,
): TuiState {
  const text = str(q?.text);
  const choices = choicesOf(q?.schema);
  const question: Question = { task, ctx, text, options: choices?.options ?? null, values: choices?.values ?? null };
  // Asked again because the last answer was refused: say why, and the question stays open.
  const why = typeof q?.rejected === 'string' ? q.rejected : null;
  const told =
    why === null
      ? state
      : addRow(state, { key: `rejected:${task}:${str(q?.id)}`, kind: 'error', ctx, text: `answer rejected: ${why}` });
  const next = addRow(told, { key: `q:${task}:${str(q?.id)}`, kind: 'question', ctx, text });
  return { ...next, question };
}

/** Sets the goal a view shows (from its history, or a feed `goal` state). */
export function withGoal(state: TuiState, ctx: string, goal: GoalShown | null): TuiState {
  return { ...state, goals: { ...state.goals, [ctx]: goal } };
}

/** The header's goal: `goal: ship the report (active)`; null when the view has none. */
export function goalLine(state: TuiState, ctx: string | null): string | null {
  const goal = ctx === null ? null : state.goals?.[ctx];
  return goal ? `goal: ${goal.objective} (${goal.status})` : null;
}

/** The header's budget mark: `budget waiting` once a window is spent; nothing while it is `ok` or unset. */
export function budgetLine(state: TuiState): string | null {
  return state.budget && state.budget !== 'ok' ? `budget ${state.budget}` : null;
}

/** The plan checklist state the header shows: the view's own (with all in view, the running task's). */
export function planLine(state: TuiState): string | null {
  const view = state.ctx ?? (state.working ? state.active[state.working.task] : undefined);
  const plan = view === undefined ? undefined : state.plans[view];
  return plan ? `plan: ${plan}` : null;
}

/** The newest task still running in view (what Esc and /cancel stop), or null. */
export function runningTask(state: TuiState): string | null {
  const here = Object.entries(state.active).filter(([, c]) => state.ctx === null || c === state.ctx);
  return here.at(-1)?.[0] ?? null;
}

/** The rows of the conversation in view. */
export function visibleRows(state: TuiState): Row[] {
  return state.ctx === null ? state.rows : state.rows.filter((r) => r.ctx === null || r.ctx === state.ctx);
}

/**
 * `after` with the view held where the person scrolled to: rows that arrived in view while scrolled back move the
 * scroll by as many, so the screen does not slide under them (interfaces §5 case 7); following, it follows.
 */
export function heldView(before: TuiState, after: TuiState): TuiState {
  if (before.scroll === 0 || after.scroll !== before.scroll) return after;
  // Counted after the last row shown before, not by length: at the row cap the oldest go as new ones come.
  const shown = visibleRows(before);
  const now = visibleRows(after);
  const last = shown.at(-1)?.key;
  const at = last === undefined ? -1 : now.findIndex((r) => r.key === last);
  const grown = at < 0 ? now.length - shown.length : now.length - 1 - at;
  return grown > 0 ? { ...after, scroll: after.scroll + grown } : after;
}

/** `8s`, `1m14s`, `2h03m`. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The working row: `thinking · 12s`, `read_file · 3s`, `waiting · 40s`; null when nothing runs. */
export function workingLine(state: TuiState, now: number): string | null {
  const w = state.working;
  if (!w)
    return state.question ? (state.question.options ? 'waiting for your choice' : 'waiting for your answer') : null;
  const what = w.phase === 'tool' && w.tool ? w.tool : w.phase;
  return Number.isFinite(w.started_ms) ? `${what} · ${elapsed(now - w.started_ms)}` : what;
}
