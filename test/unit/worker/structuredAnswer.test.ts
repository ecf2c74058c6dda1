import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTolerant } from '../../../src/protocol/tolerantJson.js';
import { decideStructured, SCHEMA_REASKS } from '../../../src/worker/structuredAnswer.js';

describe('parseTolerant (AC-PARSE)', () => {
  it('parses plain JSON', () => {
    assert.deepEqual(parseTolerant(' {"a": 1} '), { ok: true, value: { a: 1 } });
  });
  it('parses a ```json fenced block and a bare ``` fence', () => {
    assert.deepEqual(parseTolerant('```json\n{"a": 2}\n```'), { ok: true, value: { a: 2 } });
    assert.deepEqual(parseTolerant('```\n[1,2]\n```'), { ok: true, value: [1, 2] });
  });
  it('takes the first { to the last } out of prose', () => {
    assert.deepEqual(parseTolerant('Sure: {"intent": "task", "n": {"x": 1}} hope that helps'), {
      ok: true,
      value: { intent: 'task', n: { x: 1 } },
    });
  });
  it('takes a bare array out of prose', () => {
    assert.deepEqual(parseTolerant('here: [1, "two", 3] done'), { ok: true, value: [1, 'two', 3] });
  });
  it('accepts any JSON value, scalars included', () => {
    assert.deepEqual(parseTolerant('42'), { ok: true, value: 42 });
    assert.deepEqual(parseTolerant('"text"'), { ok: true, value: 'text' });
  });
  it('fails on non-JSON with the first 120 characters', () => {
    const prose = `not json at all ${'x'.repeat(200)}`;
    const result = parseTolerant(prose);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.error === `the answer was not valid JSON: ${prose.slice(0, 120)}`);
  });
  it('fails on an empty answer', () => {
    assert.equal(parseTolerant('   ').ok, false);
  });
});

describe('decideStructured', () => {
  const schema = {
    type: 'object',
    properties: { intent: { type: 'string', enum: ['chat', 'task'] } },
    required: ['intent'],
  };
  it('accepts a value that matches the schema', () => {
    assert.deepEqual(decideStructured('{"intent":"task"}', schema, 0), { kind: 'accept', value: { intent: 'task' } });
  });
  it('re-asks a schema miss with the exact correction text', () => {
    const d = decideStructured('Sure: {"intent": "maybe"}', schema, 0);
    assert.equal(d.kind, 'reask');
    assert.ok(d.kind === 'reask');
    assert.match(
      d.correction,
      /^Your answer did not match the required schema: .*intent.*\. Reply again with ONLY one JSON object that matches the schema\.$/,
    );
  });
  it('re-asks a parse miss', () => {
    const d = decideStructured('no json here', schema, 1);
    assert.ok(d.kind === 'reask');
    assert.equal(d.correction, 'the answer was not valid JSON: no json here. Reply with ONLY one JSON object.');
  });
  it(`fails after ${SCHEMA_REASKS} re-asks`, () => {
    const schemaMiss = decideStructured('{"intent":"maybe"}', schema, SCHEMA_REASKS);
    assert.ok(schemaMiss.kind === 'fail');
    assert.match(schemaMiss.error, /^answer does not match the output schema: /);
    const parseMiss = decideStructured('prose', schema, SCHEMA_REASKS);
    assert.deepEqual(parseMiss, { kind: 'fail', error: 'the answer was not valid JSON: prose' });
  });
  it('without a schema accepts any JSON but re-asks prose', () => {
    assert.equal(decideStructured('[1]', undefined, 0).kind, 'accept');
    assert.equal(decideStructured('just words', undefined, 0).kind, 'reask');
  });
});
