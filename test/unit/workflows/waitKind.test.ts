// The `wait` kind's load-time checks (strict fields, each `on` and what it needs) and its pure resolution of a due
// wait (producers reference §2.8 `wait`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { dueWaitResult, signalHeld } from '../../../src/workflows/kinds/waitKind.js';

function errors(wait: Record<string, unknown>): string[] {
  const got = loadWorkflow({
    name: 'w',
    steps: {
      s: { kind: 'once' },
      x: { kind: 'wait', depends_on: 's', ...wait },
      f: { kind: 'finish', depends_on: 'x' },
    },
  });
  return got.ok ? [] : got.errors;
}

const at = (text: string): string => `workflow "w" step "x": ${text}`;

describe('wait kind: load-time checks', () => {
  it('accepts each built `on` with what it needs', () => {
    assert.deepEqual(errors({ on: 'signal', signal: 'go' }), []);
    assert.deepEqual(errors({ on: 'run', run: '{{inputs.run}}', timeout: '5m' }), []);
    assert.deepEqual(errors({ on: 'subagent', subagent: '{{steps.s.output.handle}}' }), []);
    assert.deepEqual(errors({ on: 'deadline', timeout: '30s' }), []);
    assert.deepEqual(errors({ on: 'deadline', until: '2030-01-01T00:00:00Z' }), []);
  });

  it('refuses an unknown field naming workflow, step and field, and a missing `on`', () => {
    assert.deepEqual(errors({ on: 'signal', signal: 'go', duration: '5s' }), [
      at(
        'unknown field "duration" for kind "wait" (allowed: on, server, uri, signal, run, subagent, timeout, until, condition, conversation, webhook)',
      ),
    ]);
    assert.deepEqual(errors({ signal: 'go' }), [at('kind "wait" requires field "on"')]);
  });

  it('takes condition, message and webhook waits; refuses an unknown `on` and a field of another `on`', () => {
    assert.deepEqual(errors({ on: 'webhook', webhook: {} }), []);
    assert.deepEqual(errors({ on: 'message' }), []);
    assert.deepEqual(errors({ on: 'condition', condition: 'has(signals.go)' }), []);
    assert.deepEqual(errors({ on: 'teleport' }), [
      at('wait.on must be one of signal|run|subagent|deadline|resource|condition|message|webhook'),
    ]);
    assert.deepEqual(errors({ on: 'signal', signal: 'go', conversation: 'c' }), [
      at('wait.conversation applies only to on: message'),
    ]);
  });

  it('names what each `on` needs, and fields that belong to another `on`', () => {
    assert.deepEqual(errors({ on: 'signal' }), [at('wait on: signal needs signal (a non-empty string)')]);
    assert.deepEqual(errors({ on: 'run', run: 'r', signal: 'go' }), [at('wait.signal applies only to on: signal')]);
    assert.deepEqual(errors({ on: 'deadline' }), [at('wait on: deadline needs a timeout or until')]);
    assert.deepEqual(errors({ on: 'resource', server: 'kb', uri: 'x://y', timeout: '5s' }), []);
    assert.deepEqual(errors({ on: 'resource', server: 'kb' }), [
      at('wait on: resource needs uri (a non-empty string)'),
    ]);
    assert.deepEqual(errors({ on: 'signal', signal: 'go', uri: 'x://y' }), [
      at('wait.uri applies only to on: resource'),
    ]);
    assert.deepEqual(errors({ on: 'signal', signal: 'go', until: 5 }), [at('wait.until applies only to on: deadline')]);
    assert.deepEqual(errors({ on: 'deadline', until: 'soon' }), [
      at('wait.until must be epoch milliseconds or an ISO 8601 date-time, got "soon"'),
    ]);
    assert.deepEqual(errors({ on: 'deadline', timeout: '2d' }), [at("timeout: unknown duration unit 'd' in 2d")]);
  });
});

describe('dueWaitResult', () => {
  const run = (signals: WorkflowRun['signals']) => ({ signals }) as WorkflowRun;

  it('takes the oldest held signal of its name, leaving the others', () => {
    const r = run([
      { name: 'other', payload: 0, key: 'a', at: 1 },
      { name: 'go', payload: 1, key: 'b', at: 2 },
      { name: 'go', payload: 2, key: 'c', at: 3 },
    ]);
    const wait = { kind: 'signal' as const, signal: 'go', dueMs: null, sinceMs: 0 };
    assert.equal(signalHeld(r, wait), true);
    assert.deepEqual(dueWaitResult(r, wait, 10), {
      type: 'done',
      output: { signal: 'go', payload: 1, from: null },
    });
    assert.deepEqual(
      r.signals?.map((s) => s.key),
      ['a', 'c'],
    );
  });

  it('times out a signal wait with nothing held, and ends a deadline wait with the time waited', () => {
    const r = run([{ name: 'other', payload: 0, key: 'a', at: 1 }]);
    const wait = { kind: 'signal' as const, signal: 'go', dueMs: 5, sinceMs: 0 };
    assert.equal(signalHeld(r, wait), false);
    assert.deepEqual(dueWaitResult(r, wait, 10), { type: 'failed', error: 'wait timed out', timeout: true });
    assert.deepEqual(dueWaitResult(r, { kind: 'deadline', dueMs: 50, sinceMs: 20 }, 51), {
      type: 'done',
      output: { waited_ms: 31 },
    });
  });
});
