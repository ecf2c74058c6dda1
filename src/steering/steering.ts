// The steering desk (seed 003): the controls of a conversation — plan mode, goal state, side-task links and notes —
// and the feed of turn facts the internal producers (goal continuations, wake notes) react to. Decisions come
// from pure policy (context/controls.ts, wakeNotes.ts); this records them durably before it publishes what is due,
// so goals advance and stop with or without a producer listening. It never accepts an event.
import type { Config } from '../config/types.js';
import { controlsOf, newGoal, nextGoalStep, sideResultNote } from '../context/controls.js';
import type { ConversationBook } from '../context/conversationBook.js';
import { renderSummary } from '../context/render.js';
import type { Conversation, ConversationControls } from '../domain/conversation.js';
import type { Goal } from '../domain/goal.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { ThinkJob } from '../domain/job.js';
import { ownershipRefusal } from '../domain/principal.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { chargedTokens } from '../protocol/usage.js';
import { newUlid } from '../store/ulid.js';
import type { EngineEventType } from '../supervisor/supervisorOptions.js';
import type { ToolCaller, ToolResult } from '../tools/toolOutcome.js';
import { type Activity, type CommittedTurn, type ContinuationDue, TurnFacts, type TurnFeed } from './turnFeed.js';
import { wakeAfterFold } from './wakeStep.js';

export type { CommittedTurn, ContinuationDue } from './turnFeed.js';

export interface SteeringDeps {
  config: Readonly<Config>;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  /** A message for `ctx` is queued, or its turn runs. */
  pending(ctx: string): { queued: boolean; live: boolean };
  paused(): boolean;
  draining(): boolean;
  /** The restore has loaded the conversations and queued what was pending. */
  restored(): boolean;
  think(job: ThinkJob): Promise<ToolResult>;
  /** A live-feed event for the task of `eventId` (proposal). */
  engine(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void;
}

/** The error text of a continuation dropped before it ran (its kind is `stale`): it counts for nothing. */
export const DROPPED_CONTINUATION = 'goal continuation dropped';

const JUDGE_SCHEMA = {
  type: 'object',
  properties: { achieved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['achieved', 'reason'],
  additionalProperties: false,
};

export class Steering {
  /** What the internal producers observe: committed folds, idle boundaries, activity (only this desk publishes). */
  readonly feed: TurnFeed;
  private readonly facts: TurnFacts;

  constructor(private readonly deps: SteeringDeps) {
    const activity = (ctx: string): Activity => ({
      ...deps.pending(ctx),
      paused: deps.paused(),
      draining: deps.draining(),
    });
    this.facts = new TurnFacts(activity, (err) => deps.log.error('fold.after.fail', { err: describeError(err) }));
    this.feed = this.facts;
  }

  /** The mode new messages of `ctx` run in. */
  modeOf(ctx: string): 'plan' | 'execute' {
    const conv = this.deps.conversations.get(ctx);
    return conv ? controlsOf(conv).mode : 'execute';
  }

  /** Sets a conversation's mode (the caller's act); later messages run in it, a running turn keeps its own. */
  setMode(ctx: string, principal: string | null, mode: 'plan' | 'execute'): void {
    const conv = this.owned(ctx, principal);
    if (controlsOf(conv).mode === mode) return;
    this.update(conv, { mode });
    this.deps.log.info('mode.set', { ctx, mode });
  }

  goalSet(ctx: string, principal: string | null, objective: string, budget: number | null): Goal {
    const conv = this.owned(ctx, principal);
    const goal = newGoal(objective.trim(), budget, this.deps.now());
    this.update(conv, { goal });
    this.deps.log.info('goal.set', { ctx, token_budget: budget });
    return goal;
  }

  goalGet(ctx: string, principal: string | null): Goal | null {
    return controlsOf(this.owned(ctx, principal)).goal;
  }

  goalClear(ctx: string, principal: string | null): boolean {
    const conv = this.owned(ctx, principal);
    if (controlsOf(conv).goal === null) return false;
    this.update(conv, { goal: null });
    this.deps.log.info('goal.cleared', { ctx });
    return true;
  }

  /**
   * A goal set from outside a turn: its conversation may be idle, and its goal may start working at once. Before
   * the restore it does nothing: the restore's kickAll picks every active goal up, once (a continuation accepted
   * now would not count as waiting until the restore opens, and a second one could follow it).
   */
  kick(ctx: string): void {
    if (!this.deps.restored()) return;
    this.continueAtIdle(ctx);
  }

  /** After a restore or a pause: every conversation with an active goal may pick it up again. */
  kickAll(): void {
    for (const conv of this.deps.conversations.list()) {
      if (controlsOf(conv).goal?.status === 'active') this.continueAtIdle(conv.id);
    }
  }

  private activity(ctx: string): Activity {
    return this.facts.activity(ctx);
  }

  private continueAtIdle(ctx: string): void {
    const due = this.goalAtIdle(ctx, this.activity(ctx));
    if (due) this.facts.continuationDue(due);
  }

  /**
   * The continuation an idle conversation's active goal starts (execute mode, nothing waiting or running, not
   * paused), recorded with its new count; null when none is due.
   */
  private goalAtIdle(ctx: string, activity: Activity): ContinuationDue | null {
    const conv = this.deps.conversations.get(ctx);
    const controls = conv ? controlsOf(conv) : null;
    const goal = controls?.goal ?? null;
    const idle = !activity.queued && !activity.live && !activity.paused && !activity.draining;
    if (!conv || goal?.status !== 'active' || controls?.mode === 'plan' || !idle) return null;
    return this.recordContinuation(conv, { ...goal, continuations: goal.continuations + 1 });
  }

  /** The judge (a think child on roles.think) decides whether the evidence meets the objective. */
  async goalComplete(caller: ToolCaller, evidence: string, parent: { node: number; turnId: string }) {
    const conv = this.deps.conversations.get(caller.conversation);
    const goal = conv ? controlsOf(conv).goal : null;
    if (!conv || goal === null) return { result: 'goal.complete: this conversation has no goal', is_error: true };
    if (goal.status !== 'active') return { result: `goal.complete: the goal is ${goal.status}`, is_error: true };
    const verdict = await this.deps.think({
      purpose: 'think',
      ctx: conv.id,
      parentNode: parent.node,
      system:
        'You judge whether a goal is achieved. Compare the evidence with the objective strictly: achieved only ' +
        'when the evidence shows every part of the objective is met. Reply with ONLY one JSON object.',
      messages: [{ role: 'user', text: `Objective: ${goal.objective}\n\nEvidence: ${evidence}`, ts: this.deps.now() }],
      schema: JUDGE_SCHEMA,
      turnId: `${parent.turnId}.judge`,
    });
    return this.applyJudgement(conv, goal, evidence, verdict);
  }

  /**
   * Opens a side task of the caller's conversation for its owner, seeded with its summary, one hop deeper than
   * the caller; its instruction is the side-task producer's to accept. A refusal is a string.
   */
  openSide(caller: ToolCaller): { conversation: string; depth: number } | string {
    const depth = caller.depth + 1;
    const max = this.deps.config.limits.max_message_depth;
    if (depth > max) return `refused: hop depth ${depth} would exceed limits.max_message_depth (${max})`;
    const parent = this.deps.conversations.get(caller.conversation);
    if (!parent) return 'the calling conversation is unknown';
    const id = `side-${newUlid(this.deps.now()).toLowerCase()}`;
    let side: Conversation;
    try {
      side = this.deps.conversations.create(id, parent.principal); // the owner's conversations quota
    } catch (err) {
      return `refused: ${describeError(err)}`;
    }
    this.update(side, { side_of: parent.id });
    void this.deps.conversations.noteNow(id, seedNote(parent), parent.principal);
    return { conversation: id, depth };
  }

  /** The conversation a side task reports to, or null (not a side task, or unknown). */
  sideOf(ctx: string): string | null {
    const conv = this.deps.conversations.get(ctx);
    return conv ? controlsOf(conv).side_of : null;
  }

  /** The principal that owns `ctx`, or null. */
  ownerOf(ctx: string): string | null {
    return this.deps.conversations.heads.ownerOf(ctx);
  }

  /**
   * Opens `ctx` for `principal` when it does not exist yet (a delivery's target, bound before its accept); past the
   * principal's `conversations` quota it throws QuotaExceeded and nothing is opened.
   */
  claim(ctx: string, principal: string | null): void {
    if (!this.deps.conversations.heads.has(ctx)) this.deps.conversations.create(ctx, principal);
  }

  /** The owner of `ctx` (null: nobody's), or undefined when no such conversation was ever opened. */
  knownOwner(ctx: string): string | null | undefined {
    const heads = this.deps.conversations.heads;
    return heads.has(ctx) ? heads.ownerOf(ctx) : undefined;
  }

  /**
   * Keeps a side task as a normal conversation; only its parent may promote it. The side task may have been
   * evicted (or the daemon restarted): its link is stored with it, so it is loaded first.
   */
  async sidePromote(caller: ToolCaller, id: string): Promise<string | null> {
    const side = await this.deps.conversations.fetch(id);
    if (!side || controlsOf(side).side_of !== caller.conversation)
      return `${id} is not a side task of this conversation`;
    this.update(side, { side_of: null });
    this.deps.log.info('side.promoted', { ctx: caller.conversation, side: id });
    return null;
  }

  /**
   * After a fold commits: waiting notes, the proposal, a side task's report, the goal's step (its accounting, a
   * stop, its next continuation recorded), a sender's wake note; then the producers hear what is due.
   */
  afterTurn(turn: CommittedTurn): void {
    const ctx = turn.event.payload.context_id;
    const conv = this.deps.conversations.get(ctx);
    if (!conv) return;
    this.flushNotes(conv);
    const controls = controlsOf(conv);
    if (turn.event.payload.mode === 'plan') this.recordProposal(conv, turn);
    if (controls.side_of !== null) {
      const reply = turn.outcome.status === 'completed' ? turn.outcome.reply : turn.outcome.error || turn.outcome.reply;
      this.note(controls.side_of, sideResultNote(ctx, turn.outcome.status, reply), conv.principal);
      this.deps.log.info('side.reported', { ctx: controls.side_of, side: ctx, status: turn.outcome.status });
    }
    if (controls.goal?.status === 'achieved' && !controls.goal.accounted) this.closeGoal(conv, controls.goal, turn);
    const due = this.goalStep(turn);
    const wake = wakeAfterFold(turn, this.deps.config, this);
    this.facts.committed(turn);
    if (due) this.facts.continuationDue(due);
    if (wake) this.facts.wakeDue(wake);
  }

  /**
   * The goal's step after a fold. A continuation dropped before it ran counts for nothing, but its goal must
   * still go on: one replaced while it waited has no other continuation queued, so the idle check runs again.
   */
  private goalStep(turn: CommittedTurn): ContinuationDue | null {
    const ctx = turn.event.payload.context_id;
    if (turn.outcome.error_kind === 'stale') return this.goalAtIdle(ctx, this.activity(ctx));
    return this.goalAfterTurn(turn, this.activity(ctx));
  }

  /** The final accounting of an achieved goal: the achieving turn counts too. */
  private closeGoal(conv: Conversation, goal: Goal, turn: CommittedTurn): void {
    const usage = turn.result?.usage;
    const tokens = goal.tokens + (usage ? chargedTokens(usage) : 0);
    const done: Goal = { ...goal, turns: goal.turns + 1, tokens, accounted: true, updated: this.deps.now() };
    this.update(conv, { goal: done });
    this.deps.log.info('goal.achieved', { ctx: conv.id, turns: done.turns, tokens: done.tokens });
  }

  private recordProposal(conv: Conversation, turn: CommittedTurn): void {
    if (turn.outcome.status !== 'completed') return;
    const text = turn.outcome.reply;
    this.update(conv, { proposal: { text, turn: turn.event.id, ts: this.deps.now() } });
    this.deps.log.info('proposal', { ctx: conv.id, inbox_event: turn.event.id, chars: text.length });
    this.deps.engine(turn.event.id, 'proposal', { ctx: conv.id, text });
  }

  /** A note on behalf of `principal` (an A2A caller): refused (throws) where that principal may not write. */
  noteFor(ctx: string, principal: string | null, text: string): void {
    const owner = this.deps.conversations.heads.ownerOf(ctx);
    if (ownershipRefusal(owner, principal)) throw new Error('this conversation is not available');
    this.note(ctx, text, principal);
  }

  /**
   * Leaves a `[note]` for the conversation's next turn, durably. While a turn of it runs, the note waits in its
   * controls and joins the transcript after that turn's messages (never in the middle of them).
   */
  note(ctx: string, text: string, owner: string | null): void {
    const conv = this.deps.conversations.get(ctx);
    if (conv && this.deps.pending(ctx).live) {
      const controls = controlsOf(conv);
      this.update(conv, { pending_notes: [...(controls.pending_notes ?? []), text] });
    } else {
      void this.deps.conversations.noteNow(ctx, text, owner);
    }
    this.deps.log.info('wake.note', { ctx, chars: text.length });
  }

  /** Appends the notes that waited for a live turn to end (after its fold; or before a replayed turn starts). */
  flushNotes(conv: Conversation): void {
    const waiting = controlsOf(conv).pending_notes ?? [];
    if (waiting.length === 0) return;
    const now = this.deps.now();
    this.deps.conversations.append(
      conv,
      waiting.map((text) => ({ role: 'note' as const, text, ts: now })),
    );
    this.update(conv, { pending_notes: [] });
  }

  /** A queued goal continuation that must not run: its goal is gone or changed, or a message waits before it. */
  staleContinuation(job: { ctx: string; event: InboxEvent }, messageWaiting: boolean): string | null {
    if (job.event.kind !== 'goal_continuation') return null;
    const conv = this.deps.conversations.get(job.ctx);
    const goal = conv ? controlsOf(conv).goal : null;
    if (goal?.status !== 'active') return 'the goal is no longer active';
    if (job.event.payload.goal_created !== undefined && job.event.payload.goal_created !== goal.created) {
      return 'the goal was replaced';
    }
    return messageWaiting ? 'a message for the conversation goes first' : null;
  }

  /**
   * Accounts a committed turn against its conversation's active goal and records the step; returns the
   * continuation to accept when the goal goes on now (nothing waits, not paused), else null.
   */
  private goalAfterTurn(turn: CommittedTurn, activity: Activity): ContinuationDue | null {
    const conv = this.deps.conversations.get(turn.event.payload.context_id);
    const goal = conv ? controlsOf(conv).goal : null;
    if (!conv || goal?.status !== 'active') return null;
    const usage = turn.result?.usage;
    const step = nextGoalStep(
      goal,
      {
        status: turn.outcome.status,
        toolCalls: turn.result?.tool_calls ?? 0,
        tokens: usage ? chargedTokens(usage) : 0,
        continuation: turn.event.kind === 'goal_continuation',
        planMode: turn.event.payload.mode === 'plan',
      },
      activity,
      this.deps.now(),
    );
    if (step.kind === 'continue') return this.recordContinuation(conv, step.goal);
    this.update(conv, { goal: step.goal });
    const fields = { ctx: conv.id, turns: step.goal.turns, tokens: step.goal.tokens };
    if (step.kind === 'stop') this.deps.log.info(step.event, { ...fields, reason: step.goal.reason });
    else this.deps.log.debug('goal.held', { ...fields, why: step.why });
    return null;
  }

  private recordContinuation(conv: Conversation, goal: Goal): ContinuationDue {
    this.update(conv, { goal });
    return { ctx: conv.id, principal: conv.principal, goal };
  }

  private applyJudgement(conv: Conversation, judged: Goal, evidence: string, verdict: ToolResult): ToolResult {
    const value = verdict.result as { achieved?: unknown; reason?: unknown } | null;
    if (verdict.is_error || typeof value?.achieved !== 'boolean') {
      return { result: `goal.complete: the judge could not decide (${String(verdict.result)})`, is_error: true };
    }
    const reason = typeof value.reason === 'string' ? value.reason : '';
    const goal = controlsOf(conv).goal;
    // The verdict is about the goal the judge was shown: one replaced or cleared meanwhile is not achieved by it.
    if (goal === null || goal.created !== judged.created || goal.objective !== judged.objective) {
      return { result: 'goal.complete: the goal changed while the judge was deciding', is_error: true };
    }
    if (!value.achieved) {
      return { result: `goal.complete: the judge did not accept the evidence: ${reason}`, is_error: true };
    }
    const done: Goal = { ...goal, status: 'achieved', evidence, updated: this.deps.now() };
    this.update(conv, { goal: done });
    return { result: { achieved: true, reason, turns: done.turns, tokens: done.tokens }, is_error: false };
  }

  /** The conversation, when `principal` may steer it (created for them on first use). */
  private owned(ctx: string, principal: string | null): Conversation {
    const existing = this.deps.conversations.get(ctx);
    if (existing && ownershipRefusal(existing.principal, principal))
      throw new Error('this conversation is not available');
    return existing ?? this.deps.conversations.create(ctx, principal);
  }

  /**
   * Changes the controls and commits them at once, through the ordered commit queue: whatever is acknowledged
   * after this (an accept in the new mode) commits after it. A refused write is retried by the next checkpoint.
   */
  private update(conv: Conversation, patch: Partial<ConversationControls>): void {
    this.deps.conversations.setControls(conv, { ...controlsOf(conv), ...patch });
    void this.deps.conversations.saveNow(conv);
  }
}

/** What a side task reads first: where it comes from and what its parent knows so far. */
function seedNote(parent: Conversation): string {
  const summary = parent.summary ? renderSummary(parent.summary) : '';
  const lastUser = [...parent.messages].reverse().find((m) => m.role === 'user');
  const ask = lastUser?.role === 'user' ? lastUser.text.slice(0, 2000) : '';
  return [
    `Side task of conversation ${parent.id}: work on the instruction below on your own; your final reply goes back there.`,
    summary ? `Parent summary:\n${summary}` : 'The parent has no summary yet.',
    ask ? `The parent's latest request: ${ask}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
