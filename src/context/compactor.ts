// Runs compaction (reference §16) off the fold and for the `context.compact` tool: the trigger, the summarizer
// think child, apply or the fallback, then clipping huge tool results. The plan/apply policy is context/compaction.ts.
import type { Config } from '../config/types.js';
import type { Conversation } from '../domain/conversation.js';
import { modelWindow } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { ThinkChildren, ThinkOutcome } from '../supervisor/thinkChildren.js';
import {
  type ApplyResult,
  applyCompaction,
  type CompactionPlan,
  clipToolResults,
  FALLBACK_MAX_BYTES,
  fallbackNarrative,
  planCompaction,
  SUMMARY_SCHEMA,
} from './compaction.js';
import type { ConversationBook } from './conversationBook.js';
import { estimateConversation } from './estimate.js';

/** The summarizer's guidance (reference §16.3); `context.summarize.prompt` replaces it, never the answer format. */
const SUMMARIZER_GUIDANCE =
  'You compact a conversation faithfully into goals, decisions, open items and facts, plus a short narrative. ' +
  'Be short and specific. Never invent anything. Keep identifiers, names, paths and numbers verbatim.';
const ANSWER_FORMAT =
  'Reply with ONLY one JSON object: {"goals": [...], "decisions": [...], "open": [...], "facts": [...], ' +
  '"narrative": "..."} (lists of strings).';
/** Clipping aims this far under the trigger, so the next turn does not trigger again at once. */
const CLIP_HEADROOM = 0.8;
/** The summarizer's input is bounded to this share of the window (never below MIN_INPUT_TOKENS). */
const INPUT_SHARE = 0.5;
const MIN_INPUT_TOKENS = 1024;
/** The fallback narrative takes at most this share of the window (8 KB caps it on any real window). */
const NARRATIVE_SHARE = 0.25;

export interface CompactorDeps {
  config: Readonly<Config>;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  thinks: ThinkChildren;
  metrics: Metrics;
  /** The conversation changed (or a compaction ended): checkpoint and re-run the gate. */
  onChange(ctx: string): void;
}

export interface CompactRequest {
  targetTokens?: number;
  keepLast?: number;
  /** The turn that asked (the `context.compact` tool): the summarizer dies with it. */
  parentNode?: number;
}

/** The `context.compact` tool's answer. */
export interface CompactReport {
  version: number;
  est_tokens: number;
  folded: number;
  note?: string;
}

export class Compactor {
  private readonly running = new Set<string>();
  private seq = 0;

  constructor(private readonly deps: CompactorDeps) {}

  /** Conversations being compacted now (no message of them starts meanwhile). */
  busyContexts(): string[] {
    return [...this.running];
  }

  /** The trigger after a fold: the estimate strictly above `compact_at` × the model window. */
  afterTurn(ctx: string): void {
    const conv = this.deps.conversations.get(ctx);
    if (!conv || this.running.has(ctx)) return;
    if (estimateConversation(conv) > this.threshold()) void this.compact(ctx, {});
  }

  /** Compacts `ctx` now; resolves with the tool's report. Never rejects. */
  async compact(ctx: string, req: CompactRequest): Promise<CompactReport> {
    const conv = this.deps.conversations.get(ctx);
    if (!conv) return { version: 0, est_tokens: 0, folded: 0, note: 'nothing to compact' };
    if (this.running.has(ctx)) return this.report(conv, 0, 'compaction already in progress');
    const before = estimateConversation(conv);
    const window = modelWindow(this.deps.config);
    const plan = planCompaction(conv, {
      keepLast: req.keepLast ?? this.deps.config.context.keep_last,
      ...(req.targetTokens !== undefined ? { targetTokens: req.targetTokens } : {}),
      maxInputTokens: Math.max(MIN_INPUT_TOKENS, Math.floor(window * INPUT_SHARE)),
    });
    if (plan === null) {
      const clipped = this.clip(conv, req.targetTokens);
      if (clipped === 0) return this.report(conv, 0, 'nothing to compact');
      this.compacted(conv, { folded: 0, before, clipped, fallback: false });
      return this.report(conv, 0, `clipped ${clipped} tool results`);
    }
    this.running.add(ctx);
    let outcome: ThinkOutcome;
    try {
      this.deps.log.info('context.compaction.start', { ctx, fold: plan.fold, version: plan.version });
      outcome = await this.summarize(conv, plan, req.parentNode);
    } finally {
      this.running.delete(ctx);
    }
    return this.finish(conv, plan, outcome, before, req.targetTokens);
  }

  private threshold(): number {
    return this.deps.config.context.compact_at * modelWindow(this.deps.config);
  }

  private summarize(conv: Conversation, plan: CompactionPlan, parentNode: number | undefined): Promise<ThinkOutcome> {
    const { config, now, thinks } = this.deps;
    const guidance = config.context.summarize.prompt ?? SUMMARIZER_GUIDANCE;
    return thinks.start({
      purpose: 'compaction',
      ctx: conv.id,
      parentNode: parentNode ?? 0,
      system: `${guidance}\n\n${ANSWER_FORMAT}`,
      messages: [{ role: 'user', text: plan.input, ts: now() }],
      schema: SUMMARY_SCHEMA,
      turnId: `compact-${conv.id}-${++this.seq}`,
    });
  }

  /** Applies the verdict, or the fallback narrative when there is none (or it does not apply). */
  private finish(
    conv: Conversation,
    plan: CompactionPlan,
    outcome: ThinkOutcome,
    before: number,
    target: number | undefined,
  ): CompactReport {
    const { log, now } = this.deps;
    let applied: ApplyResult | null = null;
    if (outcome.kind === 'answer') {
      applied = applyCompaction(conv, plan, outcome.value, now());
      if (applied.ok) this.deps.conversations.replaceAfterCompaction(conv, applied.parts);
      else log.warn('context.compaction.apply_fail', { ctx: conv.id, err: applied.error });
    } else {
      const event = outcome.kind === 'spawn_fail' ? 'context.compaction.spawn_fail' : 'context.compaction.think_failed';
      log.warn(event, { ctx: conv.id, err: outcome.error });
    }
    const fallback = applied === null || !applied.ok;
    if (fallback && conv.version !== plan.version) {
      this.deps.onChange(conv.id);
      return this.report(conv, 0, `context version moved from ${plan.version} to ${conv.version} during compaction`);
    }
    if (fallback) {
      const maxBytes = Math.min(FALLBACK_MAX_BYTES, Math.floor(modelWindow(this.deps.config) * NARRATIVE_SHARE * 4));
      applied = applyCompaction(conv, plan, fallbackNarrative(plan.lines, maxBytes), now());
      if (!applied.ok) {
        log.warn('context.compaction.apply_fail', { ctx: conv.id, err: applied.error, fallback: true });
        this.deps.onChange(conv.id);
        return this.report(conv, 0, applied.error);
      }
      this.deps.conversations.replaceAfterCompaction(conv, applied.parts);
    }
    const clipped = this.clip(conv, target);
    this.compacted(conv, { folded: plan.fold, before, clipped, fallback });
    return this.report(conv, plan.fold);
  }

  /** Clips huge tool results when the conversation is still over the trigger (or the tool's target). */
  private clip(conv: Conversation, target: number | undefined): number {
    const goal = target ?? Math.floor(this.threshold() * CLIP_HEADROOM);
    if (target === undefined && estimateConversation(conv) <= this.threshold()) return 0;
    const { clipped, parts } = clipToolResults(conv, goal, this.deps.now());
    if (parts !== null) this.deps.conversations.replaceAfterCompaction(conv, parts);
    return clipped;
  }

  private compacted(
    conv: Conversation,
    how: { folded: number; before: number; clipped: number; fallback: boolean },
  ): void {
    const { log, metrics } = this.deps;
    log.info('context.compacted', {
      ctx: conv.id,
      folded: how.folded,
      version: conv.version,
      before: how.before,
      after: estimateConversation(conv),
      ...(how.clipped > 0 ? { clipped: how.clipped } : {}),
      ...(how.fallback ? { fallback: true } : {}),
    });
    metrics.compactions.inc({ kind: how.folded === 0 ? 'clip' : how.fallback ? 'fallback' : 'summary' });
    this.deps.onChange(conv.id);
  }

  private report(conv: Conversation, folded: number, note?: string): CompactReport {
    const report: CompactReport = { version: conv.version, est_tokens: estimateConversation(conv), folded };
    if (note !== undefined) report.note = note;
    return report;
  }
}
