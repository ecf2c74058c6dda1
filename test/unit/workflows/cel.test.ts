// CEL through @bufbuild/cel as our workflows use it (producers reference §2.5): the conformance suites of the
// features we rely on (literals, comparisons, logic, macros, lists, strings, arithmetic) through compileCel, then
// our own conversions (JSON integers are CEL ints) and templates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { compileCel, evalCel, evalPredicate } from '../../../src/workflows/cel.js';
import { renderString, renderValue } from '../../../src/workflows/templates.js';

const SUITES = ['basic', 'comparisons', 'logic', 'macros', 'lists', 'string', 'integer_math', 'fp_math'];

type Kind = { case?: string; value?: unknown };

/** A conformance `cel.expr.Value` as plain JSON, or undefined for a type our features never produce. */
function expected(value: { kind: Kind }): { json: unknown } | undefined {
  const { case: kase, value: v } = value.kind;
  switch (kase) {
    case 'int64Value':
    case 'uint64Value':
      return { json: Number(v) };
    case 'doubleValue':
      return Number.isFinite(v as number) ? { json: v } : undefined;
    case 'stringValue':
    case 'boolValue':
      return { json: v };
    case 'nullValue':
      return { json: null };
    case 'listValue': {
      const items = (v as { values: Array<{ kind: Kind }> }).values.map(expected);
      return items.every((i) => i !== undefined) ? { json: items.map((i) => i?.json) } : undefined;
    }
    default:
      return undefined;
  }
}

interface Case {
  name: string;
  expr: string;
  want: { json: unknown } | 'error';
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const suite of getConformanceSuite().suites.filter((s) => SUITES.includes(s.name))) {
    for (const section of suite.suites) {
      for (const test of section.tests) {
        const o = test.original;
        if (
          o.disableMacros ||
          o.checkOnly ||
          o.container !== '' ||
          o.typeEnv.length > 0 ||
          Object.keys(o.bindings).length > 0
        )
          continue;
        const matcher = o.resultMatcher;
        if (matcher.case === 'evalError') out.push({ name: `${suite.name}/${test.name}`, expr: o.expr, want: 'error' });
        else if (matcher.case === 'value') {
          const want = expected(matcher.value as { kind: Kind });
          if (want) out.push({ name: `${suite.name}/${test.name}`, expr: o.expr, want });
        }
      }
    }
  }
  return out;
}

describe('CEL conformance (the suites our features use)', () => {
  const all = cases();
  it('selects a real part of the suite', () => {
    assert.ok(all.length >= 200, `only ${all.length} cases selected`);
  });

  it('evaluates every selected case as the specification says', () => {
    const wrong: string[] = [];
    for (const c of all) {
      const got = evalCel(c.expr, {});
      if (c.want === 'error' ? got.ok : !got.ok || JSON.stringify(got.value) !== JSON.stringify(c.want.json))
        wrong.push(`${c.name}: ${c.expr} → ${JSON.stringify(got)}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('compileCel over run data', () => {
  it('treats JSON integers as CEL ints, so item * 10 works (P-17) and results leave as JSON', () => {
    assert.deepEqual(evalCel('CEL: item * 10', { item: 3 }), { ok: true, value: 30 });
    assert.deepEqual(evalCel('inputs.xs.map(x, x + 1)', { inputs: { xs: [1, 2] } }), { ok: true, value: [2, 3] });
    assert.deepEqual(evalCel('{"a": 1}', {}), { ok: true, value: { a: 1 } });
  });

  it('refuses a parse error at compile time and a predicate that is not a bool', () => {
    const bad = compileCel('1 +');
    assert.equal(bad.ok, false);
    const num = compileCel('1');
    assert.ok(num.ok);
    assert.deepEqual(evalPredicate(num.program, {}), { ok: false, error: 'CEL expression returned int, want bool' });
  });

  it('refuses expressions over 4096 bytes', () => {
    assert.match(String((compileCel(`"${'a'.repeat(5000)}"`) as { error: string }).error), /exceeds 4096 bytes/);
  });
});

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
