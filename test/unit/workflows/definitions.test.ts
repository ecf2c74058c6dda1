// Loading dialect-3 documents (producers reference §2.2-2.3, case P-13): every documented refusal has its text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';

const base = (steps: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'w', ...extra, steps });
const ok3 = { s: { kind: 'once' }, f: { kind: 'finish', depends_on: 's' } };

function errors(doc: unknown): string[] {
  const got = loadWorkflow(doc);
  return got.ok ? [] : got.errors;
}

describe('loadWorkflow', () => {
  it('accepts a minimal document and hashes its canonical JSON (key order does not matter)', () => {
    const a = loadWorkflow(base(ok3));
    const b = loadWorkflow({ steps: { f: { depends_on: 's', kind: 'finish' }, s: { kind: 'once' } }, name: 'w' });
    assert.ok(a.ok && b.ok);
    assert.equal(a.def.hash, b.def.hash);
    assert.match(a.def.hash, /^[0-9a-f]{64}$/);
  });

  it('P-13: an unknown field names the workflow, the step, the field and what is allowed', () => {
    assert.deepEqual(errors(base({ ...ok3, x: { kind: 'agent', depends_on: 's', prompt: 'hi', instruction: 'x' } })), [
      'workflow "w" step "x": unknown field "prompt" for kind "agent" (allowed: instruction, output_contract, tools, servers, limits, context, skills, system)',
    ]);
  });

  it('names a missing required field, an unknown kind and a kind this build does not run', () => {
    assert.deepEqual(errors(base({ ...ok3, v: { kind: 'assign', depends_on: 's' } })), [
      'workflow "w" step "v": kind "assign" requires field "value"',
    ]);
    assert.deepEqual(errors(base({ ...ok3, v: { kind: 'teleport', depends_on: 's' } })), [
      'workflow "w" step "v": unknown kind "teleport"',
    ]);
    assert.deepEqual(errors(base({ ...ok3, v: { kind: 'search.query', depends_on: 's', query: 'c', limit: 99 } })), [
      'workflow "w" step "v": search.query.limit must be an integer in 1..50 (got 99)',
    ]);
  });

  it('refuses unknown top-level fields, other dialects and a common field this build does not implement', () => {
    assert.deepEqual(errors(base(ok3, { nope: 1 })), ['workflow "w": unknown workflow field "nope"']);
    assert.deepEqual(errors(base(ok3, { version: 2 })), [
      'workflow "w": version 2 is not dialect 3 (dialect 1/2 documents are refused — see docs/workflows.md §migration)',
    ]);
    assert.deepEqual(errors(base({ ...ok3, v: { kind: 'noop', depends_on: 's', otel: {} } })), [
      'workflow "w" step "v": field "otel" is not implemented in this build',
    ]);
  });

  it('checks the graph: a start, a finish, known deps, no cycle, no unreachable root', () => {
    assert.deepEqual(errors(base({ f: { kind: 'finish' } })), [
      'workflow "w": at least one start node is required (once|manual|loop|schedule|subscribe|signal|event|a2a)',
      'workflow "w" step "f": unreachable root (a step without depends_on must be a start node)',
    ]);
    assert.deepEqual(errors(base({ s: { kind: 'once' }, a: { kind: 'noop', depends_on: 's' } })), [
      'workflow "w": a finish step is required',
    ]);
    assert.deepEqual(errors(base({ ...ok3, a: { kind: 'noop', depends_on: 'zz' } })), [
      'workflow "w" step "a": depends_on "zz" is not a step',
    ]);
    assert.deepEqual(
      errors(
        base({
          s: { kind: 'once' },
          a: { kind: 'noop', depends_on: ['s', 'b'] },
          b: { kind: 'noop', depends_on: 'a' },
          f: { kind: 'finish', depends_on: 'b' },
        }),
      ),
      ['workflow "w": cycle among steps [a, b, f]'],
    );
  });

  it('compiles every CEL field at load and refuses bad durations with the reference text', () => {
    assert.match(
      errors(base({ ...ok3, a: { kind: 'noop', depends_on: 's', when: 'CEL: 1 +' } }))[0] ?? '',
      /^workflow "w" step "a": when: CEL parse error/,
    );
    assert.deepEqual(errors(base({ ...ok3, n: { kind: 'sleep', depends_on: 's', duration: '2d' } })), [
      'workflow "w" step "n": sleep.duration: unknown duration unit \'d\' in 2d',
    ]);
  });

  it('checks switch targets and finish statuses', () => {
    assert.deepEqual(
      errors(base({ ...ok3, sw: { kind: 'switch', depends_on: 's', on: 'x', cases: { a: 'nowhere' } } })),
      ['workflow "w" step "sw": switch target "nowhere" is not a step'],
    );
    assert.deepEqual(errors(base({ s: { kind: 'once' }, f: { kind: 'finish', depends_on: 's', status: 'great' } })), [
      'workflow "w" step "f": finish.status must be one of completed|failed|refused|cancelled',
    ]);
  });
});
