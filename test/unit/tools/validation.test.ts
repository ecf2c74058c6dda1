// Contract validation and the one-line explanation of a schema failure (reference §11.5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkInput, checkOutput, explain } from '../../../src/tools/validation.js';

describe('checkInput', () => {
  it('accepts valid arguments', () => {
    assert.deepEqual(checkInput('memory.set', { key: 'k', value: { any: 'json' }, ttl: '10m' }), { ok: true });
    assert.deepEqual(checkInput('sleep', { duration: 2 }), { ok: true });
    assert.deepEqual(checkInput('plan.create', { goal: 'g', items: ['a', { title: 'b', detail: 'd' }] }), { ok: true });
    assert.deepEqual(checkInput('plan.update', { item: 'a', status: 'done' }), { ok: true });
  });

  it('explains a missing property, a wrong type and an extra property', () => {
    assert.deepEqual(checkInput('memory.get', {}), { ok: false, explain: "must have required property 'key'" });
    assert.deepEqual(checkInput('memory.get', { key: 3 }), { ok: false, explain: '/key must be string' });
    assert.deepEqual(checkInput('memory.get', { key: 'k', extra: 1 }), {
      ok: false,
      explain: "must not have property 'extra'",
    });
  });

  it('explains an enum and a bad duration in words', () => {
    assert.deepEqual(checkInput('finish', { status: 'great' }), {
      ok: false,
      explain: '/status must be one of "completed", "failed", "refused", "cancelled"',
    });
    const bad = checkInput('sleep', { duration: '5 minutes' });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.explain, /^\/duration must be a duration like "250ms"/);
  });

  it('accepts the duration shapes config/duration.ts parses', () => {
    for (const duration of ['250ms', '2s', '1m', '1h30m', '30', '1.5s', 0, 0.25]) {
      assert.deepEqual(checkInput('sleep', { duration }), { ok: true }, String(duration));
    }
  });

  it('refuses a memory.list limit below 1', () => {
    assert.deepEqual(checkInput('memory.list', { limit: 0 }), { ok: false, explain: '/limit must be >= 1' });
  });
});

describe('checkOutput', () => {
  it('accepts an open object with the required fields', () => {
    assert.deepEqual(checkOutput('memory.delete', { deleted: true, extra: 'fine' }), { ok: true });
  });

  it('explains a violation', () => {
    assert.deepEqual(checkOutput('memory.list', { keys: [1], truncated: false }), {
      ok: false,
      explain: '/keys/0 must be string',
    });
  });
});

describe('explain', () => {
  it('prefixes the instance path when there is one', () => {
    const line = explain([
      { keyword: 'type', instancePath: '/a/b', schemaPath: '#', params: { type: 'string' }, message: 'must be string' },
    ]);
    assert.equal(line, '/a/b must be string');
  });

  it('falls back to a generic line with no errors', () => {
    assert.equal(explain([]), 'invalid value');
  });
});
