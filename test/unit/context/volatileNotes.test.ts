// Volatile facts as notes at the tail (reference §8.2 cache contract).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateNote } from '../../../src/context/volatileNotes.js';
import type { Msg } from '../../../src/protocol/messages.js';

const DAY = Date.UTC(2026, 4, 1, 12);

describe('dateNote', () => {
  it('tells a new conversation the date, once a day', () => {
    assert.equal(dateNote([], DAY), 'current date: 2026-05-01 (UTC)');
    const told: Msg[] = [{ role: 'note', text: 'current date: 2026-05-01 (UTC)', ts: DAY }];
    assert.equal(dateNote([...told, { role: 'user', text: 'hi', ts: DAY }], DAY + 3_600_000), null);
    assert.equal(dateNote(told, DAY + 86_400_000), 'current date: 2026-05-02 (UTC)');
  });
});
