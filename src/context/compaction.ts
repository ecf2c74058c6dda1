// Compaction as pure policy (reference §16): plan which messages fold, the summarizer's bounded input, apply a
// verdict (refused on version drift), the fallback narrative, and clipping huge tool results in place. No I/O.

import type { Conversation, Summary } from '../domain/conversation.js';
import type { Msg } from '../protocol/messages.js';
import { estimateConversation, estimateMessage } from './estimate.js';
import { renderSummary } from './render.js';

/** Each folded text, argument list or tool content is clipped to this many characters in the input. */
const LINE_CLIP_CHARS = 2000;
/** Summary lists keep the newest this many entries. */
const SUMMARY_LIST_MAX = 32;
/** The fallback narrative is trimmed from the front to this many bytes. */
export const FALLBACK_MAX_BYTES = 8000;
const ELIDED = '(earlier messages elided)';
/** Bounding the input never clips a line below this many characters (it drops the oldest lines instead). */
const MIN_LINE_CHARS = 200;
/** A clipped tool result keeps at least this many tokens of its content. */
const MIN_KEPT_TOKENS = 64;

export interface PlanOptions {
  keepLast: number;
  /** Keep folding while the kept messages estimate above this (the `context.compact` tool's target_tokens). */
  targetTokens?: number;
  /** Bound on the summarizer's input (tokens, characters / 4), so an oversized conversation can still compact. */
  maxInputTokens: number;
}

export interface CompactionPlan {
  /** How many leading messages fold into the summary. */
  fold: number;
  /** The conversation version planned against; apply refuses when it moved. */
  version: number;
  /** The folded messages, one rendered line each (also the fallback narrative's source). */
  lines: string[];
  /** The summarizer's one user message. */
  input: string;
}

/** The summarizer's answer: the four lists and an optional narrative (reference §16.3 schema). */
export interface SummaryVerdict {
  goals: string[];
  decisions: string[];
  open: string[];
  facts: string[];
  narrative?: string;
}

export const SUMMARY_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    goals: { type: 'array', items: { type: 'string' } },
    decisions: { type: 'array', items: { type: 'string' } },
    open: { type: 'array', items: { type: 'string' } },
    facts: { type: 'array', items: { type: 'string' } },
    narrative: { type: 'string' },
  },
  required: ['goals', 'decisions', 'open', 'facts'],
  additionalProperties: false,
};

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function json(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** One folded message as the summarizer reads it: `[user alice] …`, `[assistant] … calls: f({…})`, `[tool f] …`. */
export function renderLine(msg: Msg): string {
  switch (msg.role) {
    case 'system':
    case 'note':
      return `[${msg.role}] ${clip(msg.text, LINE_CLIP_CHARS)}`;
    case 'user':
      return `[user${msg.principal ? ` ${msg.principal}` : ''}] ${clip(msg.text, LINE_CLIP_CHARS)}`;
    case 'assistant': {
      const calls = msg.tool_calls.map((c) => `${c.name}(${clip(JSON.stringify(c.arguments) ?? '', LINE_CLIP_CHARS)})`);
      const text = clip(msg.text ?? '', LINE_CLIP_CHARS);
      return `[assistant] ${text}${calls.length > 0 ? ` calls: ${calls.join(', ')}` : ''}`;
    }
    case 'tool':
      return `[tool ${msg.name}${msg.is_error ? ' error' : ''}] ${clip(JSON.stringify(msg.content) ?? 'null', LINE_CLIP_CHARS)}`;
  }
}

/**
 * Which messages fold (reference §16.2): all but the last `keepLast`, more while a target is missed, then back to a
 * user message so the kept window starts with one and no tool result is kept without its call. Null: nothing to do.
 */
export function planCompaction(conv: Conversation, opts: PlanOptions): CompactionPlan | null {
  const { messages } = conv;
  const n = messages.length;
  if (n < opts.keepLast + 2) return null;
  let fold = n - opts.keepLast;
  if (opts.targetTokens !== undefined) {
    let kept = 0;
    for (let i = fold; i < n; i++) kept += estimateMessage(messages[i] as Msg);
    while (kept > opts.targetTokens && n - fold > 2) kept -= estimateMessage(messages[fold++] as Msg);
  }
  while (fold > 0 && messages[fold]?.role !== 'user') fold--;
  if (fold === 0) return null;
  const lines = messages.slice(0, fold).map(renderLine);
  return { fold, version: conv.version, lines, input: boundedInput(conv.summary, lines, opts.maxInputTokens * 4) };
}

/**
 * The summarizer's input within `maxChars`: the previous summary (at most a quarter of it), then the folded lines,
 * each shortened evenly when they do not fit, and the oldest dropped when even short lines do not.
 */
export function boundedInput(summary: Summary | null, lines: readonly string[], maxChars: number): string {
  const previous = renderSummary(summary);
  const head =
    previous === ''
      ? ''
      : `Previous summary (already compacted; extend it, do not lose it):\n${clip(previous, Math.floor(maxChars / 4))}\n\n`;
  const title = 'Transcript excerpt to compact:\n';
  const room = Math.max(0, maxChars - head.length - title.length);
  return `${head}${title}${fitLines(lines, room).join('\n')}`;
}

function fitLines(lines: readonly string[], room: number): string[] {
  const total = lines.reduce((sum, l) => sum + l.length + 1, 0);
  if (total <= room) return [...lines];
  const perLine = Math.max(MIN_LINE_CHARS, Math.floor(room / Math.max(1, lines.length)) - 2);
  const short = lines.map((l) => clip(l, perLine));
  let used = short.reduce((sum, l) => sum + l.length + 1, 0) + ELIDED.length + 1;
  let first = 0;
  while (used > room && first < short.length - 1) used -= (short[first++] as string).length + 1;
  return first === 0 ? short : [ELIDED, ...short.slice(first)];
}

/** A verdict object shaped as the schema says, or null. */
function asVerdict(value: unknown): SummaryVerdict | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const lists = ['goals', 'decisions', 'open', 'facts'] as const;
  const isList = (x: unknown) => Array.isArray(x) && x.every((e) => typeof e === 'string');
  if (!lists.every((k) => isList(v[k]))) return null;
  if (v['narrative'] !== undefined && typeof v['narrative'] !== 'string') return null;
  return v as unknown as SummaryVerdict;
}

/** What a compaction or a clip changes; the conversation book applies it (`replaceAfterCompaction`). */
export interface CompactedParts {
  summary: Summary | null;
  messages: Msg[];
  version: number;
  updated: number;
}

export type ApplyResult =
  | { ok: true; folded: number; before: number; after: number; parts: CompactedParts }
  | { ok: false; error: string };

/**
 * Folds a verdict (or a plain narrative) into the summary and drops the folded messages (reference §16.4): lists
 * deduplicated keeping the newest 32, the narrative replaced when a new one comes, the version bumped. The plan
 * is not touched. Refuses when the conversation's version moved since the plan. Pure: `conv` is left as it is and
 * the new parts are returned.
 */
export function applyCompaction(conv: Conversation, plan: CompactionPlan, verdict: unknown, now: number): ApplyResult {
  if (conv.version !== plan.version) {
    return { ok: false, error: `context version moved from ${plan.version} to ${conv.version} during compaction` };
  }
  if (plan.fold > conv.messages.length) return { ok: false, error: 'the plan folds more messages than there are' };
  const parsed =
    typeof verdict === 'string'
      ? { goals: [], decisions: [], open: [], facts: [], narrative: verdict }
      : asVerdict(verdict);
  if (parsed === null) return { ok: false, error: 'the summary does not match its schema' };
  const parts: CompactedParts = {
    summary: absorb(conv.summary, parsed, plan.fold, now),
    messages: conv.messages.slice(plan.fold),
    version: conv.version + 1,
    updated: now,
  };
  const after = estimateConversation({ ...conv, ...parts });
  return { ok: true, folded: plan.fold, before: estimateConversation(conv), after, parts };
}

function absorb(old: Summary | null, verdict: SummaryVerdict, fold: number, now: number): Summary {
  const merge = (was: readonly string[], add: readonly string[]): string[] => {
    const out = [...was];
    for (const entry of add) if (entry.trim() !== '' && !out.includes(entry)) out.push(entry);
    return out.slice(Math.max(0, out.length - SUMMARY_LIST_MAX));
  };
  const summary: Summary = {
    goals: merge(old?.goals ?? [], verdict.goals),
    decisions: merge(old?.decisions ?? [], verdict.decisions),
    open: merge(old?.open ?? [], verdict.open),
    facts: merge(old?.facts ?? [], verdict.facts),
    covers_messages: (old?.covers_messages ?? 0) + fold,
    updated: now,
  };
  const narrative = verdict.narrative?.trim() ? verdict.narrative : old?.narrative;
  if (narrative !== undefined) summary.narrative = narrative;
  return summary;
}

/** The summarizer could not run: the folded lines as a narrative, trimmed from the front to 8000 bytes (or less). */
export function fallbackNarrative(lines: readonly string[], maxBytes = FALLBACK_MAX_BYTES): string {
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  const kept = [...lines];
  let text = kept.join('\n');
  let elided = false;
  while (bytes(text) > maxBytes && kept.length > 1) {
    kept.shift();
    elided = true;
    text = `${ELIDED}\n${kept.join('\n')}`;
  }
  return elided ? text : kept.join('\n');
}

/**
 * Clips the largest tool results, each to a common size with a note saying so, until the conversation estimates
 * at most `target` (or every result is down to 64 tokens). For a conversation whose size sits in a few enormous
 * tool results, which planCompaction cannot fold. Bumps the version when it changes anything (the stored
 * transcript is rewritten). Pure: returns how many results it clipped and the new parts (null when none).
 */
export function clipToolResults(
  conv: Conversation,
  target: number,
  now: number,
): { clipped: number; parts: CompactedParts | null } {
  const excess = estimateConversation(conv) - target;
  if (excess <= 0) return { clipped: 0, parts: null };
  const sizes = conv.messages.map((m) => (m.role === 'tool' ? estimateMessage(m) : 0));
  const cap = clipCap(sizes, excess);
  let clipped = 0;
  const messages = conv.messages.map((msg, i) => {
    if (msg.role !== 'tool' || (sizes[i] as number) <= cap) return msg;
    clipped++;
    return { ...msg, content: clipContent(msg.content, cap) };
  });
  if (clipped === 0) return { clipped, parts: null };
  return { clipped, parts: { summary: conv.summary, messages, version: conv.version + 1, updated: now } };
}

/** The largest per-result size (tokens) whose clipping removes `excess`, never below MIN_KEPT_TOKENS. */
function clipCap(sizes: readonly number[], excess: number): number {
  const saved = (cap: number) => sizes.reduce((sum, s) => sum + Math.max(0, s - cap), 0);
  let low = MIN_KEPT_TOKENS;
  let high = Math.max(low, ...sizes);
  if (saved(low) <= excess) return low;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (saved(mid) >= excess) low = mid;
    else high = mid;
  }
  return low;
}

function clipContent(content: unknown, capTokens: number): string {
  const text = json(content);
  const note = (kept: number) =>
    `\n[clipped by compaction: the result had ${text.length} characters; the first ${kept} are kept]`;
  const keep = Math.max(0, capTokens * 4 - note(text.length).length - 16);
  return `${text.slice(0, keep)}${note(keep)}`;
}
