// How results come back (reference §1.9): distillation, the answer, the notes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerOf, distill, resultNote, TRUNCATION_MARKER, turnNote } from '../../../src/subagents/results.js';
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
