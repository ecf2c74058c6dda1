// Compaction with real workers and the scripted model: a long conversation folds into a summary after a turn, a
// failing summarizer still compacts (fallback), three huge tool results get clipped under the window, and the
// context.compact tool compacts on request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import type { MatchRule } from '../doubles/scriptedModel.js';
import { answer, type Rig, startRig } from './harness.js';

// Preflight off: these long messages would otherwise be triaged first (over 280 characters).
const SMALL_WINDOW = {
  AGENTD_CONTEXT_MODEL_WINDOW: '3000',
  AGENTD_CONTEXT_KEEP_LAST: '4',
  AGENTD_AGENT_PREFLIGHT: 'never',
};
const SUMMARY = { goals: ['finish the report'], decisions: ['use plain text'], open: ['two'], facts: ['k is 42'] };
const SUMMARIZER: MatchRule = {
  when_contains: 'Transcript excerpt to compact',
  content: { ...SUMMARY, narrative: 'n' },
};
const WORK: MatchRule[] = [
  {
    when_contains: 'MAKE-PLAN',
    times: 1,
    tool_calls: [{ name: 'plan.create', arguments: { goal: 'finish', items: ['one', 'two'] } }],
  },
  { when_contains: 'LOOKUP', times: 1, tool_calls: [{ name: 'memory.get', arguments: { key: 'k' } }] },
];

async function say(rig: Rig, ctx: string, text: string): Promise<void> {
  const outcome = await answer(rig, ctx, text);
  assert.equal(outcome.status, 'completed', outcome.error);
}

/** Every kept tool result's call is kept too. */
function callsKept(messages: readonly Msg[]): boolean {
  const ids = new Set(messages.flatMap((m) => (m.role === 'assistant' ? m.tool_calls.map((c) => c.id) : [])));
  return messages.every((m) => m.role !== 'tool' || ids.has(m.id));
}

/** Six turns of ~400 tokens each in `ctx`: a plan, a tool call, then filler, until the window's 0.7 is crossed. */
async function longConversation(rig: Rig, ctx: string): Promise<void> {
  const filler = ' lorem ipsum dolor sit amet'.repeat(58);
  await say(rig, ctx, `MAKE-PLAN${filler}`);
  await say(rig, ctx, `LOOKUP${filler}`);
  for (let i = 0; i < 4; i++) await say(rig, ctx, `step ${i}${filler}`);
  await rig.sup.whenIdle();
}

describe('compaction', () => {
  it('folds a long conversation into a summary: smaller, starting with a user message, the plan verbatim', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [SUMMARIZER, ...WORK] }, SMALL_WINDOW);
    try {
      await longConversation(rig, 'c');
      const conv = rig.sup.conversation('c');
      assert.ok(conv);
      const compacted = rig.named('context.compacted');
      assert.equal(compacted.length, 1, 'compacted once');
      const event = compacted[0] as Record<string, number> & { after: number; before: number; folded: number };
      assert.ok(event.after < event.before, JSON.stringify(event));
      assert.ok(event.folded > 0);
      assert.equal(event.fallback, undefined);
      assert.equal(rig.named('context.compaction.start').length, 1);
      assert.equal(conv.version, 2);
      assert.equal(conv.messages[0]?.role, 'user');
      assert.ok(callsKept(conv.messages));
      assert.deepEqual(conv.plan?.goal, 'finish');
      assert.deepEqual(
        conv.plan?.items.map((i) => [i.title, i.status]),
        [
          ['one', 'pending'],
          ['two', 'pending'],
        ],
      );
      assert.deepEqual(conv.summary?.goals, SUMMARY.goals);
      assert.equal(conv.summary?.narrative, 'n');
      const summarizer = rig.model.requests.find((r) => JSON.stringify(r.body).includes('Transcript excerpt'));
      assert.equal((summarizer?.body as { temperature?: number } | undefined)?.temperature, 0);
      const stored = (await rig.store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'c');
      assert.equal(stored?.version, 2, 'the compacted transcript is on disk');
      assert.equal(stored?.messages.length, conv.messages.length);
    } finally {
      await rig.close();
    }
  });

  it('a message that arrives while its conversation compacts starts only after the compaction', async () => {
    const slowSummary: MatchRule = { ...SUMMARIZER, delay_ms: 1_500 };
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [slowSummary, ...WORK] }, SMALL_WINDOW);
    try {
      await longConversation(rig, 'c');
      await say(rig, 'c', 'one more');
      const order = rig.events.flatMap((e) =>
        ['context.compaction.start', 'context.compacted', 'inbox.accepted', 'turn.spawn'].includes(String(e.event))
          ? [String(e.event)]
          : [],
      );
      const start = order.indexOf('context.compaction.start');
      const done = order.indexOf('context.compacted');
      assert.ok(start >= 0 && done > start, 'compacted once');
      const during = order.slice(start + 1, done);
      assert.ok(during.includes('inbox.accepted'), `premise: a message arrived while compacting (${order.join(' ')})`);
      assert.ok(!during.includes('turn.spawn'), `no turn started while compacting (${order.join(' ')})`);
      assert.equal(order.at(done + 1), 'turn.spawn', 'the waiting message started right after');
    } finally {
      await rig.close();
    }
  });

  it('compacts anyway when the summarizer fails: a plain narrative, fallback: true', async () => {
    const failing: MatchRule = { when_contains: 'Transcript excerpt to compact', content: 'not json at all' };
    const rig = await startRig({ turns: [{ content: 'ok' }], match: [failing, ...WORK] }, SMALL_WINDOW);
    try {
      await longConversation(rig, 'c');
      assert.equal(rig.named('context.compaction.think_failed').length, 1);
      const [event] = rig.named('context.compacted');
      assert.equal(event?.fallback, true);
      assert.ok(Number(event?.after) < Number(event?.before));
      const conv = rig.sup.conversation('c');
      // The folded lines, trimmed from the front to a quarter of this small window (8 KB on a real one).
      const narrative = String(conv?.summary?.narrative);
      assert.match(narrative, /^\(earlier messages elided\)\n/);
      assert.match(narrative, /\[user operator\] step 0 lorem/);
      assert.ok(Buffer.byteLength(narrative) <= 3000);
      assert.equal(conv?.messages[0]?.role, 'user');
      assert.equal(conv?.plan?.goal, 'finish');
    } finally {
      await rig.close();
    }
  });

  it('gets a conversation of three huge tool results under its window by clipping them in place', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'done' }],
        match: [
          SUMMARIZER,
          {
            when_contains: 'FETCH-ALL',
            times: 1,
            tool_calls: ['a', 'b', 'c'].map((key) => ({ name: 'memory.get', arguments: { key } })),
          },
        ],
      },
      { AGENTD_CONTEXT_MODEL_WINDOW: '4000' },
    );
    try {
      for (const key of ['a', 'b', 'c'])
        await rig.store.memory.set({ key, value: 'z'.repeat(30_000), expires: null, updated: 1 });
      await say(rig, 'c', 'FETCH-ALL');
      await rig.sup.whenIdle();
      const [event] = rig.named('context.compacted');
      assert.ok(event, 'compacted');
      assert.ok(Number(event.before) > 4000, 'the premise: over the whole window');
      assert.ok(Number(event.after) < 0.7 * 4000, JSON.stringify(event));
      assert.equal(event.clipped, 3);
      assert.equal(event.folded, 0);
      const conv = rig.sup.conversation('c');
      const results = conv?.messages.filter((m) => m.role === 'tool') ?? [];
      assert.equal(results.length, 3);
      assert.ok(callsKept(conv?.messages ?? []));
      for (const r of results) assert.match(String(r.role === 'tool' && r.content), /\[clipped by compaction:/);
    } finally {
      await rig.close();
    }
  });

  it('context.compact compacts the caller’s conversation on request and reports what it folded', async () => {
    const rig = await startRig({
      turns: [{ content: 'ok' }],
      match: [
        SUMMARIZER,
        {
          when_contains: 'COMPACT-NOW',
          times: 1,
          tool_calls: [{ name: 'context.compact', arguments: { keep_last: 2 } }],
        },
      ],
    });
    try {
      for (let i = 0; i < 3; i++) await say(rig, 'c', `chat ${i}`);
      await say(rig, 'c', 'COMPACT-NOW');
      const conv = rig.sup.conversation('c');
      const result = conv?.messages.find((m) => m.role === 'tool');
      assert.equal(result?.role === 'tool' && result.is_error, false);
      const report = (result?.role === 'tool' ? result.content : null) as Record<string, number> | null;
      // Three chats of two messages each and the day's date note, minus the kept tail back to a user message.
      assert.equal(report?.folded, 5);
      assert.equal(report?.version, 2);
      assert.equal(conv?.messages[0]?.role, 'user');
      assert.equal(conv?.summary?.covers_messages, 5);
    } finally {
      await rig.close();
    }
  });
});
