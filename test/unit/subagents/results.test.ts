// How results come back (reference §1.9): distillation, the answer, the notes; a cut result kept whole and read in
// pages (§5 item 24).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answerOf,
  distill,
  distillWhole,
  pageOf,
  resultNote,
  TRUNCATION_MARKER,
  turnNote,
} from '../../../src/subagents/results.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

describe('distill', () => {
  it('cuts a string over 8 000 bytes at a character boundary with the marker (P-5)', () => {
    assert.equal(distill('a'.repeat(9000)), `${'a'.repeat(8000)}${TRUNCATION_MARKER}`);
    // 3-byte characters: 2 666 fit in 8 000 bytes, none is split.
    const cut = distill('€'.repeat(3000)) as string;
    assert.equal(cut, `${'€'.repeat(2666)}${TRUNCATION_MARKER}`);
  });

  it('parses a short JSON text and passes other values', () => {
    assert.deepEqual(distill('{"n":1}'), { n: 1 });
    assert.equal(distill('plain words'), 'plain words');
    assert.deepEqual(distill({ a: 1 }), { a: 1 });
  });
});

describe('notes and answers', () => {
  it('quote 400 characters of the result then …, or the error', () => {
    const long = subagentRecord({ status: 'completed', result: 'a'.repeat(9000) });
    assert.equal(resultNote(long), `subagent sub-1 completed: ${'a'.repeat(400)}…`);
    const failed = subagentRecord({ status: 'failed', result: null, error: 'boom' });
    assert.equal(resultNote(failed), 'subagent sub-1 failed: boom');
    assert.equal(turnNote('sub-2', { n: 1 }), 'subagent sub-2 finished a turn: {"n":1}');
    assert.deepEqual(answerOf(subagentRecord({ status: 'completed', result: { n: 1 } })), {
      handle: 'sub-1',
      status: 'completed',
      result: { n: 1 },
      error: null,
    });
  });
});

describe('a cut result kept whole (reference §5 item 24)', () => {
  it('distills to the cut text and keeps the whole with its size and the bytes shown', () => {
    const text = `${'€'.repeat(3000)}end`;
    const { value, whole } = distillWhole(text);
    assert.equal(value, `${'€'.repeat(2666)}${TRUNCATION_MARKER}`);
    assert.deepEqual(whole, { body: text, bytes: 9003, shown: 7998 });
    assert.equal(distillWhole('a'.repeat(8000)).whole, null, 'at the cap nothing is cut');
  });

  it('pages the whole text in UTF-8 bytes at character boundaries; the pages join to the original', () => {
    const text = `${'a'.repeat(7999)}€${'b'.repeat(9000)}`;
    const pages: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = pageOf(text, offset);
      assert.ok(Buffer.byteLength(page.text, 'utf8') <= 8000);
      pages.push(page.text);
      offset = page.next_offset;
    }
    assert.equal(pages.join(''), text);
    assert.equal(pages[0], 'a'.repeat(7999), 'the 3-byte € does not fit the first page whole');
    assert.deepEqual(pageOf(text, 8000), pageOf(text, 8002), 'an offset inside a character moves to the next one');
    assert.deepEqual(pageOf('abc', 3), { offset: 3, text: '', next_offset: null });
  });

  it('answers with where the rest lies when the result was cut', () => {
    const cut = subagentRecord({
      status: 'completed',
      result: 'x',
      stored_result: { run: 1, bytes: 9000, shown: 8000 },
    });
    assert.deepEqual(answerOf(cut), {
      handle: 'sub-1',
      status: 'completed',
      result: 'x',
      error: null,
      full_result: { bytes: 9000, run: 1, next_offset: 8000, read: 'subagent.result' },
    });
  });
});

describe('distillWhole', () => {
  it('cuts a structured result over the cap as its JSON text and keeps the whole text (premise: passed uncapped)', () => {
    const value = { items: Array.from({ length: 2_000 }, (_, i) => `item-${i}`) };
    const text = JSON.stringify(value);
    assert.ok(new TextEncoder().encode(text).length > 8_000);
    const { value: shown, whole } = distillWhole(value);
    assert.equal(shown, `${text.slice(0, 8_000)}${TRUNCATION_MARKER}`);
    assert.deepEqual(whole, { body: text, bytes: text.length, shown: 8_000 });
  });

  it('passes a small structured result as it is', () => {
    assert.deepEqual(distillWhole({ n: 1 }), { value: { n: 1 }, whole: null });
  });
});
