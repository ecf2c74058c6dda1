// The TUI's key policy (interfaces reference §1.6, §6.2): Esc cancels the running turn and Ctrl+C quits, each
// behind a confirmation when work would stop; y or the same key again confirms, any other key declines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideKey, type KeyPress, promptFor } from '../../../src/client/tuiKeys.js';

const key = (input: string, o: Partial<KeyPress> = {}): KeyPress => ({ input, escape: false, ctrl: false, ...o });
const ESC = key('', { escape: true });
const CTRL_C = key('c', { ctrl: true });

describe('decideKey', () => {
  it('Ctrl+C quits at once when nothing runs, and asks first when a turn runs', () => {
    assert.deepEqual(decideKey(CTRL_C, null, null), { type: 'quit' });
    assert.deepEqual(decideKey(CTRL_C, null, 't1'), { type: 'ask', pending: { what: 'quit' } });
  });

  it('a quit being asked: y or Ctrl+C again quits; any other key stays', () => {
    const pending = { what: 'quit' } as const;
    assert.deepEqual(decideKey(key('y'), pending, 't1'), { type: 'quit' });
    assert.deepEqual(decideKey(CTRL_C, pending, 't1'), { type: 'quit' });
    assert.deepEqual(decideKey(key('n'), pending, 't1'), { type: 'dismiss' });
    assert.deepEqual(decideKey(ESC, pending, 't1'), { type: 'dismiss' });
  });

  it('Esc asks to cancel the running task; y or Esc again cancels it; any other key keeps it', () => {
    assert.deepEqual(decideKey(ESC, null, 't1'), { type: 'ask', pending: { what: 'cancel', task: 't1' } });
    const pending = { what: 'cancel', task: 't1' } as const;
    assert.deepEqual(decideKey(key('Y'), pending, 't2'), { type: 'cancel', task: 't1' }, 'the task it asked about');
    assert.deepEqual(decideKey(ESC, pending, 't1'), { type: 'cancel', task: 't1' });
    assert.deepEqual(decideKey(key('x'), pending, 't1'), { type: 'dismiss' });
    assert.deepEqual(decideKey(CTRL_C, pending, 't1'), { type: 'dismiss' }, 'a quit is its own question');
  });

  it('Esc with nothing running, and ordinary keys, belong to the composer', () => {
    assert.deepEqual(decideKey(ESC, null, null), { type: 'pass' });
    assert.deepEqual(decideKey(key('y'), null, 't1'), { type: 'pass' });
  });

  it('each confirmation says what it stops and how to answer', () => {
    assert.match(promptFor({ what: 'quit' }), /turn is running: quit anyway\? y or \^C/);
    assert.match(promptFor({ what: 'cancel', task: 't9' }), /cancel the running turn \(task t9\)\? y or esc/);
  });
});
