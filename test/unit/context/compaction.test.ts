import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyCompaction,
  boundedInput,
  clipToolResults,
  FALLBACK_MAX_BYTES,
  fallbackNarrative,
  planCompaction,
  renderLine,
} from '../../../src/context/compaction.js';
import { newConversation } from '../../../src/context/conversation.js';
import { estimateConversation } from '../../../src/context/estimate.js';
import type { Conversation } from '../../../src/domain/conversation.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { item, plan, summary } from './fixtures.js';

const user = (text: string): Msg => ({ role: 'user', text, ts: 1 });
const answer = (text: string): Msg => ({ role: 'assistant', text, tool_calls: [], ts: 1 });
const call = (id: string): Msg => ({ role: 'assistant', tool_calls: [{ id, name: 'f', arguments: { q: id } }], ts: 1 });
const result = (id: string, content: unknown = 'r'): Msg => ({
  role: 'tool',
  id,
  name: 'f',
  content,
  is_error: false,
  ts: 1,
});

function conv(messages: Msg[]): Conversation {
  const c = newConversation('c1', 'conversation', null, 0);
  c.messages = messages;
  return c;
}

/** user, call, result, answer — `rounds` times. */
function rounds(n: number): Msg[] {
  return Array.from({ length: n }, (_, i) => [user(`u${i}`), call(`t${i}`), result(`t${i}`), answer(`a${i}`)]).flat();
}

const opts = { keepLast: 4, maxInputTokens: 10_000 };

function keptCallsOk(messages: readonly Msg[]): boolean {
  const ids = new Set(messages.flatMap((m) => (m.role === 'assistant' ? m.tool_calls.map((c) => c.id) : [])));
  return messages.every((m) => m.role !== 'tool' || ids.has(m.id));
}

describe('planCompaction', () => {
  it('does nothing under keep_last + 2 messages', () => {
    assert.equal(planCompaction(conv(rounds(1)), opts), null);
  });

  it('walks the boundary back to a user message, so the kept window starts with one', () => {
    const c = conv(rounds(4));
    const p = planCompaction(c, { ...opts, keepLast: 5 });
    assert.ok(p);
    assert.equal(p.fold, 8);
    assert.equal(c.messages[p.fold]?.role, 'user');
  });

  it('never keeps a tool result without its call', () => {
    for (let keep = 0; keep < 14; keep++) {
      const c = conv(rounds(4));
      const p = planCompaction(c, { ...opts, keepLast: keep });
      if (!p) continue;
      assert.ok(keptCallsOk(c.messages.slice(p.fold)), `keep_last ${keep}`);
    }
  });

  it('finds nothing to fold when no user message is at or before the boundary', () => {
    const c = conv([user('only'), ...Array.from({ length: 20 }, (_, i) => answer(`a${i}`))]);
    assert.equal(planCompaction(c, opts), null);
  });

  it('folds further toward a target but keeps more than two messages', () => {
    const c = conv(rounds(6));
    const p = planCompaction(c, { ...opts, keepLast: 20 - 8, targetTokens: 1 });
    assert.ok(p);
    assert.ok(c.messages.length - p.fold > 2);
    assert.equal(c.messages[p.fold]?.role, 'user');
  });

  it('renders folded lines with clipped bodies and the previous summary first', () => {
    const long = 'x'.repeat(5000);
    assert.equal(
      renderLine({ role: 'user', text: long, principal: 'user:bob', ts: 1 }),
      `[user user:bob] ${'x'.repeat(2000)}…`,
    );
    assert.equal(renderLine(call('t1')), '[assistant]  calls: f({"q":"t1"})');
    assert.equal(renderLine({ ...(result('t1', { a: 1 }) as Msg), is_error: true } as Msg), '[tool f error] {"a":1}');
    const c = conv(rounds(4));
    c.summary = summary({ goals: ['ship'] });
    const p = planCompaction(c, opts);
    assert.ok(
      p?.input.startsWith('Previous summary (already compacted; extend it, do not lose it):\nSummary of earlier'),
    );
    assert.ok(p?.input.includes('Transcript excerpt to compact:\n[user] u0'));
  });
});

describe('boundedInput', () => {
  it('keeps the input within its bound, shortening lines and eliding the oldest', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `[user] ${i} ${'y'.repeat(2000)}`);
    const input = boundedInput(null, lines, 20_000);
    assert.ok(input.length <= 20_000, `${input.length}`);
    assert.ok(input.includes('(earlier messages elided)'));
    assert.ok(input.includes('[user] 199'), 'the newest line is kept');
  });
});

describe('applyCompaction', () => {
  it('absorbs the verdict, drops the folded messages, bumps the version and leaves the plan verbatim', () => {
    const c = conv(rounds(4));
    c.plan = plan('ship it', [item(1, 'build'), item(2, 'test', 'done')]);
    const planBefore = structuredClone(c.plan);
    c.summary = summary({ goals: ['old goal'], narrative: 'before' });
    const p = planCompaction(c, opts);
    assert.ok(p);
    const verdict = { goals: ['old goal', 'new goal'], decisions: ['d'], open: [], facts: ['f'], narrative: 'now' };
    const untouched = structuredClone(c);
    const r = applyCompaction(c, p, verdict, 50);
    assert.ok(r.ok);
    assert.deepEqual(c, untouched, 'pure: the book applies the parts');
    Object.assign(c, r.parts);
    assert.ok(r.after < r.before);
    assert.equal(c.version, 2);
    assert.deepEqual(c.summary?.goals, ['old goal', 'new goal']);
    assert.equal(c.summary?.narrative, 'now');
    assert.equal(c.summary?.covers_messages, p.fold);
    assert.deepEqual(c.plan, planBefore);
    assert.equal(c.messages[0]?.role, 'user');
    assert.equal(r.after, estimateConversation(c));
  });

  it('keeps the newest 32 entries of each list', () => {
    const c = conv(rounds(4));
    c.summary = summary({ facts: Array.from({ length: 30 }, (_, i) => `old ${i}`) });
    const p = planCompaction(c, opts);
    assert.ok(p);
    const facts = Array.from({ length: 5 }, (_, i) => `new ${i}`);
    const r = applyCompaction(c, p, { goals: [], decisions: [], open: [], facts }, 1);
    assert.ok(r.ok);
    Object.assign(c, r.parts);
    assert.equal(c.summary?.facts.length, 32);
    assert.equal(c.summary?.facts[0], 'old 3');
    assert.equal(c.summary?.facts.at(-1), 'new 4');
  });

  it('refuses when the version moved, and refuses a verdict off its schema', () => {
    const c = conv(rounds(4));
    const p = planCompaction(c, opts);
    assert.ok(p);
    assert.deepEqual(applyCompaction(c, p, { goals: 'no' }, 1), {
      ok: false,
      error: 'the summary does not match its schema',
    });
    c.version = 7;
    assert.deepEqual(applyCompaction(c, p, 'narrative', 1), {
      ok: false,
      error: 'context version moved from 1 to 7 during compaction',
    });
  });
});

describe('fallbackNarrative', () => {
  it('trims from the front to 8000 bytes with a marker', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `[user] line ${i} ${'é'.repeat(100)}`);
    const text = fallbackNarrative(lines);
    assert.ok(new TextEncoder().encode(text).length <= FALLBACK_MAX_BYTES);
    assert.ok(text.startsWith('(earlier messages elided)\n'));
    assert.ok(text.endsWith(lines[99] as string));
    assert.equal(fallbackNarrative(['a', 'b']), 'a\nb');
  });
});

describe('clipToolResults', () => {
  it('gets a conversation of three huge tool results under its target, keeping every call and result', () => {
    const huge = (id: string) => result(id, { rows: 'z'.repeat(40_000) });
    const c = conv([
      user('fetch'),
      { role: 'assistant', tool_calls: ['a', 'b', 'c'].map((id) => ({ id, name: 'f', arguments: {} })), ts: 1 },
      huge('a'),
      huge('b'),
      huge('c'),
      answer('done'),
    ]);
    assert.ok(estimateConversation(c) > 30_000, 'the premise: far over');
    assert.equal(planCompaction(c, { ...opts, keepLast: 12 }), null, 'the premise: too few messages to fold');
    const clip = clipToolResults(c, 3_000, 9);
    assert.equal(clip.clipped, 3);
    assert.equal(c.version, 1, 'pure: the book applies the parts');
    Object.assign(c, clip.parts);
    assert.ok(estimateConversation(c) <= 3_000, `${estimateConversation(c)}`);
    assert.equal(c.version, 2);
    assert.equal(c.messages.length, 6);
    assert.ok(keptCallsOk(c.messages));
    const first = c.messages[2];
    assert.ok(first?.role === 'tool' && typeof first.content === 'string');
    assert.match(
      String(first.role === 'tool' && first.content),
      /\[clipped by compaction: the result had 40011 characters/,
    );
  });

  it('changes nothing under the target', () => {
    const c = conv(rounds(2));
    assert.deepEqual(clipToolResults(c, 10_000, 1), { clipped: 0, parts: null });
    assert.equal(c.version, 1);
  });
});
