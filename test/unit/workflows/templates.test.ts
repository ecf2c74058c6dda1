// `{{…}}` templates over run data (producers reference §2.5): typed sole placeholders, defaults, secrets kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderString, renderValue } from '../../../src/workflows/templates.js';

describe('templates', () => {
  const scope = { vars: { v: { x: 1 } }, steps: { a: { output: 'hi' } }, inputs: {} };

  it('a sole placeholder keeps its type; otherwise it interpolates', () => {
    assert.deepEqual(renderString('{{vars.v.x}}', scope), { ok: true, value: 1 });
    assert.deepEqual(renderString('x={{vars.v}} s={{steps.a.output}}', scope), { ok: true, value: 'x={"x":1} s=hi' });
    assert.deepEqual(renderString('{{/vars/v/x}}', scope), { ok: true, value: 1 });
  });

  it('uses a default when the path is not set, and fails naming the path without one', () => {
    assert.deepEqual(renderString('{{inputs.n | 5}}', scope), { ok: true, value: 5 });
    assert.deepEqual(renderString("{{inputs.n | 'none'}}", scope), { ok: true, value: 'none' });
    assert.deepEqual(renderString('{{inputs.n}}', scope), {
      ok: false,
      error: 'template path "inputs.n" is not set (no default given)',
    });
  });

  it('leaves secrets verbatim and renders nested values', () => {
    assert.deepEqual(renderValue({ h: '{{secret:TOKEN}}', n: ['{{vars.v.x}}', 'CEL: 1 + 1'] }, scope), {
      ok: true,
      value: { h: '{{secret:TOKEN}}', n: [1, 2] },
    });
  });
});
