// The `human` kind's load-time checks and how it turns a person's answer into the step output (producers reference
// §2.8 `human`): the text, or with `schema` the JSON it holds, checked; no answer is a timeout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { HUMAN_KIND } from '../../../src/workflows/kinds/humanKind.js';
import type { StepContext, StepHumanAsk, StepHumanEnd } from '../../../src/workflows/nodeKind.js';

function errors(human: Record<string, unknown>): string[] {
  const got = loadWorkflow({
    name: 'w',
    steps: {
      s: { kind: 'once' },
      x: { kind: 'human', depends_on: 's', ...human },
      f: { kind: 'finish', depends_on: 'x' },
    },
  });
  return got.ok ? [] : got.errors;
}

const at = (text: string): string => `workflow "w" step "x": ${text}`;

/** Runs the kind with `spec` against a port answering `end`; returns the result and what was asked. */
async function ask(spec: Record<string, unknown>, end: StepHumanEnd, lookup = async (_host: string) => ['192.0.2.7']) {
  const asked: StepHumanAsk[] = [];
  const run = {
    id: 'r1',
    principal: 'alice',
    conversation: null,
    steps: { x: { replays: 1 } },
  } as unknown as WorkflowRun;
  const ctx = {
    run,
    step: { id: 'x' },
    spec,
    idempotencyKey: 'k',
    attempt: 2,
    signal: new AbortController().signal,
    ports: {
      lookup,
      askPerson: async (req: StepHumanAsk) => {
        asked.push(req);
        return end;
      },
    },
  } as unknown as StepContext;
  return { result: await HUMAN_KIND.run?.(ctx), asked };
}

describe('human kind: load-time checks', () => {
  it('accepts a question, with a schema and a timeout', () => {
    assert.deepEqual(errors({ question: 'Ship?', schema: { type: 'boolean' }, timeout: '1h' }), []);
  });

  it('refuses an unknown field, a bad `to` or `reply_uri`, a missing question and a broken schema, naming the step', () => {
    assert.deepEqual(errors({ question: 'Ship?', channel: 'x' }), [
      at('unknown field "channel" for kind "human" (allowed: question, schema, timeout, to, reply_uri, allow_private)'),
    ]);
    assert.deepEqual(errors({ question: 'Ship?', to: '', reply_uri: 'ftp://x' }), [
      at('human.to must be a principal id (a2a.principals)'),
      at('human.reply_uri must be an http(s) URL'),
    ]);
    assert.deepEqual(errors({ question: 'Ship?', to: 'bob', reply_uri: 'https://pager.example/q' }), []);
    assert.deepEqual(errors({}), [at('kind "human" requires field "question"')]);
    assert.equal(errors({ question: 'Ship?', schema: { type: 'nope' } }).length, 1);
    assert.match(errors({ question: 'Ship?', schema: { type: 'nope' } })[0] ?? '', /step "x": human\.schema: /);
  });
});

describe('human kind: the answer', () => {
  it('asks on a key stable across a restart (attempt less replays) and outputs the reply text', async () => {
    const { result, asked } = await ask({ question: 'Ship?' }, { ok: true, reply: 'yes', task: 't' });
    assert.deepEqual(result, { type: 'done', output: 'yes' });
    assert.equal(asked[0]?.key, 'workflow:k#1');
    assert.equal(asked[0]?.timeoutMs, 24 * 3_600_000);
    assert.equal(asked[0]?.principal, 'alice');
  });

  it('with a schema: the JSON the reply holds, checked', async () => {
    const schema = { type: 'object', required: ['ok'] };
    const good = await ask({ question: 'Q', schema }, { ok: true, reply: '{"ok": true}', task: 't' });
    assert.deepEqual(good.result, { type: 'done', output: { ok: true } });
    const bad = await ask({ question: 'Q', schema }, { ok: true, reply: 'sure', task: 't' });
    assert.equal(bad.result?.type, 'failed');
    assert.match((bad.result as { error: string }).error, /^human: the answer does not match schema: /);
  });

  it('a one-property object answered by the value alone (a choice) outputs that value', async () => {
    const schema = { type: 'object', properties: { decision: { enum: ['ship', 'hold', 'rollback'] } } };
    const picked = await ask({ question: 'Q', schema }, { ok: true, reply: 'hold', task: 't' });
    assert.deepEqual(picked.result, { type: 'done', output: 'hold' });
    const whole = await ask({ question: 'Q', schema }, { ok: true, reply: '{"decision":"ship"}', task: 't' });
    assert.deepEqual(whole.result, { type: 'done', output: { decision: 'ship' } });
  });

  it('no answer in time is a timeout; nobody to ask fails with the reason', async () => {
    const late = await ask({ question: 'Q', timeout: '2s' }, { ok: true, reply: null, task: 't' });
    assert.deepEqual(late.result, { type: 'failed', error: 'human: nobody answered in time', timeout: true });
    assert.equal(late.asked[0]?.timeoutMs, 2_000);
    const none = await ask({ question: 'Q' }, { ok: false, error: 'human: no person is reachable' });
    assert.deepEqual(none.result, { type: 'failed', error: 'human: no person is reachable' });
  });

  it('refuses a rendered reply_uri that is not http(s) or reaches a private address unless allow_private', async () => {
    const answer: StepHumanEnd = { ok: true, reply: 'yes', task: 't' };
    const inner = await ask({ question: 'Q', reply_uri: 'http://pager.internal/q' }, answer, async () => ['10.1.2.3']);
    assert.deepEqual(inner.result, {
      type: 'failed',
      error: 'human: reply_uri: pager.internal resolves to a private address (10.1.2.3); set allow_private',
    });
    assert.equal(inner.asked.length, 0, 'nobody was asked');
    const loop = await ask({ question: 'Q', reply_uri: 'http://127.0.0.1:9/q' }, answer);
    assert.match((loop.result as { error: string }).error, /127\.0\.0\.1:9 resolves to a private address/);
    const scheme = await ask({ question: 'Q', reply_uri: 'file:///etc/passwd' }, answer);
    assert.deepEqual(scheme.result, { type: 'failed', error: 'human: reply_uri must be an http(s) URL' });
    const allowed = await ask({ question: 'Q', reply_uri: 'http://127.0.0.1:9/q', allow_private: true }, answer);
    assert.deepEqual(allowed.result, { type: 'done', output: 'yes' });
    const outside = await ask({ question: 'Q', reply_uri: 'https://pager.example/q' }, answer);
    assert.deepEqual(outside.result, { type: 'done', output: 'yes' });
    assert.equal(outside.asked[0]?.replyUri, 'https://pager.example/q');
  });
});
