import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSchema } from '../../../src/worker/schemaCheck.js';

describe('checkSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      intent: { enum: ['chat', 'task'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      count: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      note: { type: ['string', 'null'] },
      ok: { type: 'boolean' },
    },
    required: ['intent'],
    additionalProperties: false,
  };

  it('accepts a matching value', () => {
    const value = { intent: 'chat', score: 0.5, count: 2, tags: ['a'], note: null, ok: true };
    assert.equal(checkSchema(value, schema), null);
  });
  it('names a missing required property', () => {
    assert.equal(checkSchema({}, schema), "(root) must have required property 'intent'");
  });
  it('checks enum, bounds, integer, items, additional properties', () => {
    assert.match(checkSchema({ intent: 'maybe' }, schema) ?? '', /^\/intent must be one of \["chat","task"\]$/);
    assert.equal(checkSchema({ intent: 'chat', score: 2 }, schema), '/score must be <= 1');
    assert.equal(checkSchema({ intent: 'chat', score: -1 }, schema), '/score must be >= 0');
    assert.equal(checkSchema({ intent: 'chat', count: 1.5 }, schema), '/count must be integer');
    assert.equal(checkSchema({ intent: 'chat', tags: ['a', 3] }, schema), '/tags/1 must be string');
    assert.equal(checkSchema({ intent: 'chat', extra: 1 }, schema), "(root) must not have additional property 'extra'");
    assert.equal(checkSchema({ intent: 'chat', note: 3 }, schema), '/note must be string or null');
  });
  it('checks the top-level type', () => {
    assert.equal(checkSchema([], schema), '(root) must be object');
    assert.equal(checkSchema(null, { type: 'null' }), null);
  });
  it('reports at most three violations', () => {
    const strict = { type: 'object', required: ['a', 'b', 'c', 'd'] };
    assert.equal(checkSchema({}, strict)?.split('; ').length, 3);
  });
  it('ignores unknown keywords and accepts an empty schema', () => {
    assert.equal(checkSchema({ x: 1 }, {}), null);
    assert.equal(checkSchema('x', { type: 'string', format: 'email' }), null);
  });
});
