// The steering desk (seed 003): plan mode, goals and side tasks over the conversations, plus what a committed
// turn leads to — wake notes, a side task's report, a goal's next continuation. Decisions come from pure policy
// (context/controls.ts, wakeNotes.ts); this applies them, durably, through the supervisor's own accept.
import type { Config } from '../config/types.js';
import { continuationText, controlsOf, newGoal, nextGoalStep, sideResultNote } from '../context/controls.js';
import type { ConversationBook } from '../context/conversationBook.js';
import { renderSummary } from '../context/render.js';
import type { Conversation, ConversationControls } from '../domain/conversation.js';
import type { Goal } from '../domain/goal.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import { describeError } from '../errors.js';
import type { EventName } from '../obs/events.js';
import type { Logger } from '../obs/log.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Accepted } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { ownershipRefusal } from '../supervisor/jobQueries.js';
import type { AcceptInput, EngineEventType } from '../supervisor/supervisorOptions.js';
import type { ThinkJob } from '../supervisor/thinkChildren.js';
import type { ToolCaller, ToolResult } from '../tools/toolOutcome.js';
import { runFinishedWake } from './wakeNotes.js';

export interface SteeringDeps {
  config: Readonly<Config>;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  /** The supervisor's accept: durable when it resolves. */
  accept(input: AcceptInput): Promise<Accepted>;
  /** A message for `ctx` is queued, or its turn runs. */
  pending(ctx: string): { queued: boolean; live: boolean };
  paused(): boolean;
  draining(): boolean;
  think(job: ThinkJob): Promise<ToolResult>;
  /** A live-feed event for the task of `eventId` (proposal). */
  engine(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void;
}

/** What a committed turn reports to the desk. */
export interface CommittedTurn {
  event: InboxEvent;
  outcome: InboxOutcome;
  /** Absent when the fold was retried after a store error (only its outcome survived). */
  result?: TurnResult;
}

/** How a continuation that never ran is folded; it counts for nothing (its goal goes on after what went first). */
export const DROPPED_CONTINUATION = 'goal continuation dropped';

const JUDGE_SCHEMA = {
  type: 'object',
  properties: { achieved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['achieved', 'reason'],
  additionalProperties: false,
};

export class Steering {
  constructor(private readonly deps: SteeringDeps) {}

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

  /** A goal set from outside a turn starts working at once when its conversation is idle. */
  kick(ctx: string): void {
    const conv = this.deps.conversations.get(ctx);
    const controls = conv ? controlsOf(conv) : null;
    const goal = controls?.goal ?? null;
    const { queued, live } = this.deps.pending(ctx);
    // A goal continues only in execute mode, at an idle boundary.
    const idle = !queued && !live && !this.deps.paused() && !this.deps.draining();
    if (!conv || goal?.status !== 'active' || controls?.mode === 'plan' || !idle) return;
    this.continueGoal(conv, { ...goal, continuations: goal.continuations + 1 });
  }

  /** After a pause: every idle conversation with an active goal picks it up again. */
  kickAll(): void {
    for (const conv of this.deps.conversations.list()) {
      if (controlsOf(conv).goal?.status === 'active') this.kick(conv.id);
    }
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

  /** Forks a side task of the caller's conversation: same owner, seeded with the parent's summary. */
  sideStart(caller: ToolCaller, instruction: string): { conversation: string } | string {
    const parent = this.deps.conversations.get(caller.conversation);
    if (!parent) return 'the calling conversation is unknown';
    const depth = caller.depth + 1;
    const max = this.deps.config.limits.max_message_depth;
    if (depth > max) return `refused: hop depth ${depth} would exceed limits.max_message_depth (${max})`;
    const id = `side-${newUlid(this.deps.now()).toLowerCase()}`;
    const side = this.deps.conversations.open(id, parent.principal);
    this.update(side, { side_of: parent.id });
    void this.deps.conversations.noteNow(id, seedNote(parent), parent.principal);
    const accepted = this.deps.accept({
      kind: 'side_task',
      parent: parent.id,
      context_id: id,
      text: instruction,
      principal: caller.principal,
      msg_depth: depth,
    });
    this.afterAccept(accepted, 'side.started', { ctx: parent.id, side: id });
    return { conversation: id };
  }

  /** Keeps a side task as a normal conversation; only its parent may promote it. */
  sidePromote(caller: ToolCaller, id: string): string | null {
    const side = this.deps.conversations.get(id);
    if (!side || controlsOf(side).side_of !== caller.conversation)
      return `${id} is not a side task of this conversation`;
    this.update(side, { side_of: null });
    this.deps.log.info('side.promoted', { ctx: caller.conversation, side: id });
    return null;
  }

  /** After a fold commits: the proposal, a side task's report, a run's wake note, the goal's next step. */
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
    } else if (turn.event.kind === 'agent_message') {
      this.wakeSender(turn.event, turn.outcome);
    }
    const dropped = turn.outcome.error?.startsWith(DROPPED_CONTINUATION) ?? false;
    if (controls.goal?.status === 'active' && !dropped) this.stepGoal(conv, controls.goal, turn);
    if (controls.goal?.status === 'achieved' && !controls.goal.accounted) this.closeGoal(conv, controls.goal, turn);
  }

  /** The final accounting of an achieved goal: the achieving turn counts too. */
  private closeGoal(conv: Conversation, goal: Goal, turn: CommittedTurn): void {
    const usage = turn.result?.usage;
    const tokens = goal.tokens + (usage ? usage.input_tokens + usage.output_tokens : 0);
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

  private wakeSender(event: InboxEvent & { kind: 'agent_message' }, outcome: InboxOutcome): void {
    const from = event.payload.from;
    const action = runFinishedWake({ from, conversation: event.payload.context_id, outcome }, this.deps.config.agent);
    const owner = this.deps.conversations.get(from)?.principal ?? null;
    if (action.kind === 'note') this.note(action.ctx, action.text, owner);
    if (action.kind !== 'think') return;
    // The wake turn acts for the sender's owner, one hop deeper: a chain of deliveries stays bounded.
    const depth = (event.payload.msg_depth ?? 0) + 1;
    const max = this.deps.config.limits.max_message_depth;
    if (depth > max) {
      this.note(action.ctx, `${action.text} (no turn: hop depth ${depth} exceeds limits.max_message_depth)`, owner);
      return;
    }
    const about = event.payload.context_id;
    const accepted = this.deps.accept({
      kind: 'wake_note',
      about,
      context_id: action.ctx,
      text: action.text,
      principal: owner,
      msg_depth: depth,
    });
    this.afterAccept(accepted, null, { ctx: action.ctx });
  }

  /** Logs `event` with the accepted inbox id once the accept committed; a refused accept is logged as such. */
  private afterAccept(accepted: Promise<Accepted>, event: EventName | null, fields: Record<string, unknown>): void {
    accepted.then(
      ({ record }) => {
        if (event !== null) this.deps.log.info(event, { ...fields, inbox_event: record.id });
      },
      (err: unknown) => this.deps.log.error('inbox.accept.fail', { ...fields, err: describeError(err) }),
    );
  }

  /** A note on behalf of `principal` (an A2A caller): refused (throws) where that principal may not write. */
  noteFor(ctx: string, principal: string | null, text: string): void {
    const owner = this.deps.conversations.get(ctx)?.principal ?? null;
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

  private stepGoal(conv: Conversation, goal: Goal, turn: CommittedTurn): void {
    const usage = turn.result?.usage;
    const step = nextGoalStep(
      goal,
      {
        status: turn.outcome.status,
        toolCalls: turn.result?.tool_calls ?? 0,
        tokens: usage ? usage.input_tokens + usage.output_tokens : 0,
        continuation: turn.event.kind === 'goal_continuation',
        planMode: turn.event.payload.mode === 'plan',
      },
      { queued: this.deps.pending(conv.id).queued, paused: this.deps.paused(), draining: this.deps.draining() },
      this.deps.now(),
    );
    if (step.kind === 'continue') {
      this.continueGoal(conv, step.goal);
      return;
    }
    this.update(conv, { goal: step.goal });
    const fields = { ctx: conv.id, turns: step.goal.turns, tokens: step.goal.tokens };
    if (step.kind === 'stop') this.deps.log.info(step.event, { ...fields, reason: step.goal.reason });
    else this.deps.log.debug('goal.held', { ...fields, why: step.why });
  }

  private continueGoal(conv: Conversation, goal: Goal): void {
    this.update(conv, { goal });
    // The continuation acts for the conversation's owner: it gets their tools, never more.
    const accepted = this.deps.accept({
      kind: 'goal_continuation',
      goal_created: goal.created,
      context_id: conv.id,
      text: continuationText(goal),
      principal: conv.principal,
    });
    const fields = { ctx: conv.id, continuation: goal.continuations, turns: goal.turns, tokens: goal.tokens };
    this.afterAccept(accepted, 'goal.continued', fields);
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
    return existing ?? this.deps.conversations.open(ctx, principal);
  }

  /**
   * Changes the controls and commits them at once, through the ordered commit queue: whatever is acknowledged
   * after this (an accept in the new mode) commits after it. A refused write is retried by the next checkpoint.
   */
  private update(conv: Conversation, patch: Partial<ConversationControls>): void {
    conv.controls = { ...controlsOf(conv), ...patch };
    conv.updated = this.deps.now();
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
