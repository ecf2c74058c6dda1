// The await tool's condition: CEL over memory, plan and now_ms (one expression language with workflows); a
// missing key is "not yet", a type mismatch or a non-bool result is an error naming the expression.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ConditionState, checkCondition, compileCondition } from '../../../src/tools/condition.js';

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

function check(text: string, state: ConditionState = STATE) {
  const compiled = compileCondition(text);
  assert.ok(compiled.ok, `${text}: ${compiled.ok ? '' : compiled.error}`);
  return compiled.ok ? checkCondition(compiled.condition, state) : undefined;
}

function compileError(text: string): string {
  const compiled = compileCondition(text);
  assert.equal(compiled.ok, false, text);
  return compiled.ok ? '' : compiled.error;
}

describe('checkCondition', () => {
  const table: [string, boolean][] = [
    ['true', true],
    ['memory.status == "ready"', true],
    ["memory.status != 'ready'", false],
    ['memory.count >= 3', true],
    ['memory.count > 3', false],
    ['memory["key with spaces"]', true],
    ['memory.report.pages == 12', true],
    ['memory["report"].title == "Q3"', true],
    ['size(memory.report.tags) == 1', true],
    ['memory.nothing == null', true],
    ['memory.list == [1, 2]', true],
    ['now_ms > 1000', true],
    ['plan.done == plan.total', false],
    ['plan.done < plan.total && now_ms > 1000', true],
    // @bufbuild/cel answers has() false for a map entry holding null (the spec says present); null reads as null.
    ['has(memory.nothing)', false],
    ['has(memory.absent)', false],
    ['has(memory.report.pages)', true],
    ['has(memory.report.nope)', false],
    ['!has(memory.absent) || memory.absent == 1', true],
    ['memory.list.exists(x, x == 2)', true],
    ['"abc" < "abd" && !(memory.count == 3)', false],
  ];
  for (const [text, expected] of table) {
    it(`${text} ⇒ ${expected}`, () => {
      assert.deepEqual(check(text), { ok: true, satisfied: expected });
    });
  }

  it('is not yet satisfied while a key it reads is absent, then holds once it is written', () => {
    assert.deepEqual(check('memory.go == true'), { ok: true, satisfied: false });
    const later = { ...STATE, memory: new Map([...STATE.memory, ['go', true]]) };
    assert.deepEqual(check('memory.go == true', later), { ok: true, satisfied: true });
  });

  it('fails naming the expression on a type mismatch once the keys it reads exist', () => {
    // Premise: the same mismatch over an absent key only waits (the key may be written with another type).
    assert.deepEqual(check('memory.absent > "x"'), { ok: true, satisfied: false });
    assert.deepEqual(check('memory.count > "x"'), {
      ok: false,
      error: `await: condition "memory.count > \\"x\\"": found no matching overload for '_>_' applied to '(int, string)'`,
    });
    assert.deepEqual(check('memory.report.missing == 1'), {
      ok: false,
      error: 'await: condition "memory.report.missing == 1": field not found: missing',
    });
  });

  it('refuses a result that is not a bool', () => {
    assert.deepEqual(check('memory.report'), {
      ok: false,
      error: 'await: condition "memory.report": returned map, want bool',
    });
    assert.deepEqual(check('plan.done'), { ok: false, error: 'await: condition "plan.done": returned int, want bool' });
  });
});

describe('compileCondition', () => {
  it('refuses a parse error in one line naming the expression', () => {
    const error = compileError('memory.x = 1');
    assert.match(error, /^await: condition "memory\.x = 1": CEL parse error: /);
    assert.ok(!error.includes('\n'));
  });

  it('knows the memory keys it reads, including through has() and macros, each once', () => {
    const compiled = compileCondition('has(memory.b) && memory.a.x == memory["b"] || [1].exists(i, memory.c == i)');
    assert.ok(compiled.ok);
    if (compiled.ok) assert.deepEqual(compiled.condition.keys, ['b', 'a', 'c']);
  });

  it('refuses memory read any other way (the keys to watch would be unknown)', () => {
    for (const text of ['"x" in memory', 'size(memory) > 0', 'memory[plan.done] == 1'])
      assert.equal(
        compileError(text),
        `await: condition ${JSON.stringify(text)}: read memory as memory.<key> or memory["key"] (has(memory.<key>) tests one)`,
      );
  });

  it('quotes a long condition by its start', () => {
    const text = `memory.a == "${'x'.repeat(200)}" +`;
    assert.match(compileError(text), /^await: condition "memory\.a == \\"x{60,}\.\.\.": /);
  });
});
