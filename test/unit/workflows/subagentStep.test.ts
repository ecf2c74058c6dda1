// The `subagent` step's load checks and the run bookkeeping it relies on (producers reference §2.3, §2.6, §2.11):
// refusals name the field, its output_schema is the child's (not checked against the step's wrapper output), a
// restart counts the interrupted attempt, and a run past limits.tokens ends with the reference's text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { applyResult, beginStep, newRun, replayInFlight } from '../../../src/workflows/runState.js';
import { nextRunDecision } from '../../../src/workflows/scheduler.js';

const doc = (sub: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'w',
  ...extra,
  steps: {
    s: { kind: 'once' },
    sub: { kind: 'subagent', depends_on: 's', ...sub },
    f: { kind: 'finish', depends_on: 'sub' },
  },
});

function errors(d: unknown): string[] {
  const got = loadWorkflow(d);
  return got.ok ? [] : got.errors;
}

function started(d: unknown, now: number): WorkflowRun {
  const got = loadWorkflow(d);
  assert.ok(got.ok, JSON.stringify(got));
  const origin = {
    id: 'w-1',
    startKey: 'k',
    node: 's',
    payload: null,
    inputs: {},
    principal: null,
    conversation: null,
  };
  return newRun(got.def, origin, now);
}

describe('the subagent step at load', () => {
  it('accepts an instruction or a template with params, in any mode', () => {
    assert.deepEqual(errors(doc({ instruction: 'x', mode: 'async', limits: { steps: 3, deadline: '1m' } })), []);
    assert.deepEqual(errors(doc({ template: 't', params: { a: 1 }, priority: 'low', tools: ['a*'] })), []);
    assert.deepEqual(errors(doc({ instruction: 'x', mode: '{{inputs.mode}}' })), [], 'a rendered mode is judged later');
  });

  it('refuses what it would otherwise ignore, and names the field', () => {
    const p = 'workflow "w" step "sub": ';
    assert.deepEqual(errors(doc({ instruction: 'x', skills: ['a'] })), []);
    assert.deepEqual(errors(doc({ instruction: 'x', skills: 'a' })), [
      `${p}subagent.skills must be a non-empty list of skill names`,
    ]);
    assert.deepEqual(errors(doc({ instruction: 'x', workflow: 'w2' })), [
      `${p}subagent.workflow is not built in this version; remove it`,
    ]);
    assert.deepEqual(errors(doc({})), [`${p}subagent needs exactly one of instruction and template`]);
    assert.deepEqual(errors(doc({ instruction: 'x', template: 't' })), [
      `${p}subagent needs exactly one of instruction and template`,
    ]);
    assert.deepEqual(errors(doc({ instruction: 'x', params: {} })), [`${p}subagent.params needs a template`]);
    assert.deepEqual(errors(doc({ instruction: 'x', mode: 'eager' })), [
      `${p}subagent.mode must be sync|async|detached|warm`,
    ]);
    assert.deepEqual(errors(doc({ instruction: 'x', priority: 'urgent' })), [
      `${p}subagent.priority must be low|normal|high`,
    ]);
    assert.deepEqual(errors(doc({ instruction: 'x', limits: { rounds: 3 } })), [
      `${p}unknown subagent.limits field "rounds" (allowed: steps, tokens, deadline, memory, cpu)`,
    ]);
    assert.deepEqual(errors(doc({ instruction: 'x', prompt: 'y' })), [
      `${p}unknown field "prompt" for kind "subagent" (allowed: instruction, template, params, mode, tools, servers, limits, priority, context, output_contract, output_schema, skills, workflow)`,
    ]);
  });

  it("keeps output_schema for the child: the step's wrapper output is not held to it", () => {
    const schema = { type: 'object', required: ['n'] };
    const got = loadWorkflow(doc({ instruction: 'x', output_schema: schema }));
    assert.ok(got.ok);
    assert.equal(got.def.steps['sub']?.outputSchema, null);
    assert.deepEqual(got.def.steps['sub']?.fields['output_schema'], schema);
    // Premise: on a kind without its own output_schema the common field holds the step output.
    const assign = loadWorkflow({
      name: 'w',
      steps: {
        s: { kind: 'once' },
        v: { kind: 'assign', depends_on: 's', value: 1, output_schema: schema },
        f: { kind: 'finish', depends_on: 'v' },
      },
    });
    assert.ok(assign.ok, JSON.stringify(assign));
    assert.deepEqual(assign.def.steps['v']?.outputSchema, schema);
  });
});

describe('run bookkeeping for subagent steps', () => {
  it('a replayed step counts the interrupted attempt, so attempt − replays names the first child again', () => {
    const run = started(doc({ instruction: 'x' }), 1_000);
    beginStep(run, 'sub', 1_001);
    replayInFlight(run, 2_000);
    beginStep(run, 'sub', 2_001);
    const state = run.steps['sub'];
    assert.equal(state?.attempt, 2);
    assert.equal((state?.attempt ?? 0) - (state?.replays ?? 0), 1);
    // A failure's retry is a new attempt that no restart interrupted: a new child.
    applyResult(run, 'sub', { type: 'failed', error: 'boom' }, 2_002);
    assert.equal(run.status, 'failed');
  });

  it('a run whose tokens reached limits.tokens ends failed with the reference text', () => {
    const run = started(doc({ instruction: 'x' }, { limits: { tokens: 100 } }), 1_000);
    run.tokens = 99;
    assert.notEqual(nextRunDecision(run, 1_001).type, 'end', 'premise: under the cap it runs');
    run.tokens = 100;
    assert.deepEqual(nextRunDecision(run, 1_002), {
      type: 'end',
      status: 'failed',
      error: 'exhausted tokens: limits.tokens = 100',
    });
  });
});
