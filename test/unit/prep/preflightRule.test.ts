// When preflight runs (reference §6.1): the auto heuristic and the two fixed modes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/domain/plan.js';
import { needsPreflight, PREFLIGHT_LENGTH, WORK_STEMS } from '../../../src/prep/preflightRule.js';

function plan(statuses: Array<'pending' | 'done' | 'skipped'>): Plan {
  const items = statuses.map((status, i) => ({ id: i + 1, title: `t${i}`, status, updated: 0 }));
  return { goal: 'g', items, next_id: items.length + 1, created: 0, updated: 0 };
}

describe('needsPreflight', () => {
  it('has the 21 stems, with trailing spaces on run and start', () => {
    assert.equal(WORK_STEMS.length, 21);
    assert.ok(WORK_STEMS.includes('run ') && WORK_STEMS.includes('start '));
  });

  it('preflights 281 characters under auto, not 280', () => {
    const chat = 'a'.repeat(PREFLIGHT_LENGTH);
    assert.equal(needsPreflight(chat, null, 'auto'), false);
    assert.equal(needsPreflight(`${chat}a`, null, 'auto'), true);
  });

  it('counts characters, not UTF-16 units', () => {
    assert.equal(needsPreflight('😀'.repeat(PREFLIGHT_LENGTH), null, 'auto'), false);
  });

  it('matches a work stem as a substring of the lowercased text', () => {
    assert.equal(needsPreflight('please fix the login page', null, 'auto'), true);
    assert.equal(needsPreflight('Please FIX it', null, 'auto'), true);
    assert.equal(needsPreflight('what a lovely planet', null, 'auto'), true, 'planet contains plan');
    assert.equal(needsPreflight('hello, how are you?', null, 'auto'), false);
    assert.equal(needsPreflight('a good run', null, 'auto'), false, '"run " needs its space');
    assert.equal(needsPreflight('run it', null, 'auto'), true);
  });

  it('preflights a chat while the conversation has an unfinished plan', () => {
    assert.equal(needsPreflight('ok thanks', plan(['done', 'pending']), 'auto'), true);
    assert.equal(needsPreflight('ok thanks', plan(['done', 'skipped']), 'auto'), false);
  });

  it('always and never do what they say; blank text never', () => {
    assert.equal(needsPreflight('hi', null, 'always'), true);
    assert.equal(needsPreflight('please fix it', null, 'never'), false);
    assert.equal(needsPreflight('  ', null, 'always'), false);
  });
});
