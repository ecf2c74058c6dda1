// The await tool's condition language: parsing (with column-accurate errors) and evaluation over a state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConditionState,
  conditionKeys,
  evaluateCondition,
  isSatisfied,
  parseCondition,
} from '../../../src/tools/condition.js';

const STATE: ConditionState = {
  now_ms: 5_000,
  plan: { done: 2, total: 3 },
  memory: new Map<string, unknown>([
    ['status', 'ready'],
    ['count', 3],
    ['report', { pages: 12, title: 'Q3', tags: ['a'] }],
    ['key with spaces', true],
    ['nothing', null],
    ['list', [1, 2]],
  ]),
};

function evaluate(text: string, state: ConditionState = STATE): unknown {
  const parsed = parseCondition(text);
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.error}`);
  return parsed.ok ? evaluateCondition(parsed.ast, state) : undefined;
}

function parseError(text: string): string {
  const parsed = parseCondition(text);
  assert.equal(parsed.ok, false, text);
  return parsed.ok ? '' : parsed.error;
}

describe('evaluateCondition', () => {
  const table: [string, unknown][] = [
    ['true', true],
    ['null', null],
    ['42', 42],
    ['-1.5e2', -150],
    ['"a \\"quoted\\" word"', 'a "quoted" word'],
    ['memory.status', 'ready'],
    ['memory.absent', null],
    ['memory["key with spaces"]', true],
    ['memory.report.pages', 12],
    ['memory["report"].title', 'Q3'],
    ['memory.report.missing', null],
    ['memory.status.length', null],
    ['memory.list', [1, 2]],
    ['now_ms', 5_000],
    ['plan.done', 2],
    ['plan.total', 3],
    ['memory.status == "ready"', true],
    ['memory.status != "ready"', false],
    ['memory.count >= 3', true],
    ['memory.count > 3', false],
    ['memory.count < 3.5', true],
    ['memory.count <= 2', false],
    ['"abc" < "abd"', true],
    ['memory.status > 1', false],
    ['memory.absent < 1', false],
    ['memory.absent == null', true],
    ['memory.list == memory.list', true],
    ['memory.report.tags == memory.report.tags', true],
    ['plan.done == plan.total', false],
    ['plan.done < plan.total && now_ms > 1000', true],
    ['memory.count == 3 || memory.absent', true],
    ['!memory.absent', true],
    ['!!memory.status', true],
    ['!(memory.count == 3)', false],
    ['exists(memory.nothing)', true],
    ['exists(memory.absent)', false],
    ['exists(memory.report.pages)', true],
    ['exists(memory.report.nope)', false],
    ['exists(memory["key with spaces"])', true],
    ['false || (true && !false)', true],
    ['  memory.count==3&&plan.done>=2  ', true],
  ];
  for (const [text, expected] of table) {
    it(`${text} ⇒ ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(evaluate(text), expected);
    });
  }

  it('reads plan counts of zero when there is no plan', () => {
    const empty: ConditionState = { now_ms: 0, plan: { done: 0, total: 0 }, memory: new Map() };
    assert.equal(evaluate('plan.total == 0', empty), true);
  });

  it('binds && tighter than ||', () => {
    assert.equal(evaluate('true || false && false'), true);
    assert.equal(evaluate('(true || false) && false'), false);
  });
});

describe('parseCondition errors', () => {
  const table: [string, string][] = [
    ['', 'empty condition at 1'],
    ['   ', 'empty condition at 1'],
    ['memory.x = 1', 'use == to compare at 10'],
    ['a & b', 'use && for "and" at 3'],
    ['a && b', 'unknown name "a" (use memory.<key>, plan.done, plan.total, now_ms or exists(...)) at 1'],
    ['true & false', 'use && for "and" at 6'],
    ['true | false', 'use || for "or" at 6'],
    ['memory.x # 1', 'unexpected character "#" at 10'],
    ['"open', 'unterminated string at 1'],
    ['"bad \\q"', 'invalid escape in string at 1'],
    ['(true', 'expected ")" to close "(", found end of condition at 6'],
    ['true)', 'unexpected ")" at 5'],
    ['memory.x ==', 'unexpected end of condition at 12'],
    ['1 < 2 < 3', 'comparisons do not chain; join them with && at 7'],
    ['len(memory.x)', 'unknown name "len" (use memory.<key>, plan.done, plan.total, now_ms or exists(...)) at 1'],
    ['exists memory.x', 'expected "(" after exists, found "memory" at 8'],
    ['exists(now_ms)', 'exists takes a memory path, like exists(memory.key) at 8'],
    ['exists(memory.x', 'expected ")" to close exists(, found end of condition at 16'],
    ['plan.pending', 'plan has only .done and .total at 6'],
    ['plan', 'expected "." after plan, found end of condition at 5'],
    ['memory', 'expected memory.<key> or memory["key"] at 7'],
    ['memory.', 'expected a key after "memory." at 8'],
    ['memory.1', 'expected a key after "memory." at 8'],
    ['memory[x]', 'expected a quoted key inside memory[...] at 8'],
    ['memory["x"', 'expected "]" after the key, found end of condition at 11'],
    ['memory.a.b.c', 'only one .field may follow a memory key at 11'],
    ['memory.a.b["c"]', 'only one .field may follow a memory key at 11'],
    ['memory.a.', 'expected a field name after "." at 10'],
    ['memory.a - 1', 'unexpected character "-" at 10'],
    ['true false', 'unexpected "false" at 6'],
    ['!', 'unexpected end of condition at 2'],
  ];
  for (const [text, expected] of table) {
    it(`${JSON.stringify(text)} ⇒ ${expected}`, () => {
      assert.equal(parseError(text), expected);
    });
  }

  it('refuses nesting past 32 levels and text past 2000 characters', () => {
    assert.match(parseError(`${'('.repeat(40)}true${')'.repeat(40)}`), /^condition nests too deeply at \d+$/);
    assert.equal(evaluate(`${'!'.repeat(20)}true`), true, '20 levels are fine');
    assert.equal(parseError(`"${'x'.repeat(2_001)}"`), 'condition is longer than 2000 characters at 1');
  });
});

describe('conditionKeys', () => {
  it('lists each memory key once, in first-use order, including exists()', () => {
    const parsed = parseCondition('exists(memory.b) && memory.a.x == memory["b"] || !memory.c');
    assert.ok(parsed.ok);
    if (parsed.ok) assert.deepEqual(conditionKeys(parsed.ast), ['b', 'a', 'c']);
  });
});

describe('isSatisfied', () => {
  it('treats false, null, 0 and "" as unsatisfied and everything else as satisfied', () => {
    for (const v of [false, null, 0, '']) assert.equal(isSatisfied(v), false, JSON.stringify(v));
    for (const v of [true, 1, -1, 'x', [], {}]) assert.equal(isSatisfied(v), true, JSON.stringify(v));
  });
});
