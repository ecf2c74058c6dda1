// message.send (hop depth, own-conversation refusal, durable delivery), status, and ask_human's fallbacks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkPortSlot } from '../../../src/runtime/workPortSlot.js';
import { cutBytes, humanQuestionText } from '../../../src/tools/handlers/messaging.js';
import type { DeliveryRequest, HumanQuestion, ToolCaller } from '../../../src/tools/internalTools.js';
import { answered, caller, deferred, err, type Harness, harness, ok, ready, run } from './fakeHost.js';

/** A deliver capability that records requests and answers like the supervisor ("new" gets a fresh id). */
function withDeliver(h: Harness): DeliveryRequest[] {
  const seen: DeliveryRequest[] = [];
  const slot = new WorkPortSlot();
  slot.plug('deliver', async (req) => {
    seen.push(req);
    return { ok: true, conversation: req.to === 'new' ? 'c9' : req.to, depth: req.depth };
  });
  h.host.port = (name) => slot.port(name);
  return seen;
}

describe('message.send', () => {
  it('delivers to root by default at depth + 1', async () => {
    const h = harness();
    const seen = withDeliver(h);
    assert.deepEqual(
      await answered(run(h, 'message.send', { text: 'done with the report' })),
      ok({ delivered: true, conversation: 'root', depth: 1 }),
    );
    assert.deepEqual(seen, [{ to: 'root', text: 'done with the report', depth: 1, caller }]);
  });

  it('delivers to a new conversation and to a conversation id', async () => {
    const h = harness();
    withDeliver(h);
    const deeper: ToolCaller = { ...caller, depth: 3 };
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'new', text: 'hi' }, deeper)),
      ok({ delivered: true, conversation: 'c9', depth: 4 }),
    );
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'c2', text: 'hi' })),
      ok({ delivered: true, conversation: 'c2', depth: 1 }),
    );
  });

  it('tells the model a delivery refused where it is accepted as an error, never as delivered', async () => {
    const h = harness();
    const slot = new WorkPortSlot();
    // As steering/agentMessages.ts answers a delivery into another principal's conversation.
    slot.plug('deliver', async (req) => ({ ok: false, error: `conversation "${req.to}" is not available` }));
    h.host.port = (name) => slot.port(name);
    const alice: ToolCaller = { ...caller, principal: 'user:alice' };
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'theirs', text: 'hi' }, alice)),
      err('message.send: conversation "theirs" is not available'),
    );
  });

  it('refuses delivery into its own conversation, by id or as root', async () => {
    const h = harness();
    const seen = withDeliver(h);
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'c1', text: 'hi' })),
      err('message.send cannot deliver into its own conversation "c1"'),
    );
    const root: ToolCaller = { ...caller, conversation: 'root', kind: 'root' };
    assert.deepEqual(
      await answered(run(h, 'message.send', { text: 'hi' }, root)),
      err('message.send cannot deliver into its own conversation "root"'),
    );
    assert.equal(seen.length, 0);
  });

  it('refuses a delivery beyond limits.max_message_depth and allows one at the limit', async () => {
    const h = harness();
    const seen = withDeliver(h);
    assert.equal((await answered(run(h, 'message.send', { text: 'hi' }, { ...caller, depth: 7 }))).is_error, false);
    assert.deepEqual(
      await answered(run(h, 'message.send', { text: 'hi' }, { ...caller, depth: 8 })),
      err('message.send refused: hop depth 9 would exceed limits.max_message_depth (8)'),
    );
    assert.equal(seen.length, 1);
  });

  it('passes a failed delivery on and refuses bad arguments', async () => {
    const h = harness();
    const slot = new WorkPortSlot();
    slot.plug('deliver', async () => ({ ok: false, error: 'conversation "zz" is not available' }));
    h.host.port = (name) => slot.port(name);
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'zz', text: 'hi' })),
      err('message.send: conversation "zz" is not available'),
    );
    assert.deepEqual(
      await answered(run(h, 'message.send', { text: '  ' })),
      err('message.send: text must not be empty'),
    );
    assert.deepEqual(
      await answered(run(h, 'message.send', { to: 'root' })),
      err("invalid arguments for message.send: must have required property 'text'"),
    );
    assert.deepEqual(
      await answered(run(h, 'message.send', { _raw: 'to=root' })),
      err('invalid arguments for message.send: not valid JSON: to=root'),
    );
  });

  it('is not available without a deliver capability, or while no producer is plugged into the port', async () => {
    assert.deepEqual(
      await answered(run(harness(), 'message.send', { text: 'x' })),
      err('"message.send" is not available here'),
    );
    const h = harness();
    const slot = new WorkPortSlot();
    h.host.port = (name) => slot.port(name);
    assert.deepEqual(
      await answered(run(h, 'message.send', { text: 'x' })),
      err('"message.send" is not available here'),
    );
  });
});

describe('status', () => {
  it('answers what the host reports for the caller', () => {
    const h = harness();
    const asked: ToolCaller[] = [];
    h.host.status = (who) => {
      asked.push(who);
      return { instance: 'agent-x', turns: { running: 1 } };
    };
    assert.deepEqual(ready(run(h, 'status', {})), ok({ instance: 'agent-x', turns: { running: 1 } }));
    assert.deepEqual(asked, [caller]);
    assert.deepEqual(
      ready(run(h, 'status', { verbose: true })),
      err("invalid arguments for status: must not have property 'verbose'"),
    );
  });

  it('is not available without a status capability', () => {
    assert.deepEqual(ready(run(harness(), 'status', {})), err('"status" is not available here'));
  });
});

describe('ask_human', () => {
  it('fails at once when nobody is reachable and the fallback is fail', () => {
    assert.deepEqual(
      ready(run(harness(), 'ask_human', { question: 'Proceed?' })),
      err('ask_human: no person is reachable (agent.ask_human_fallback is "fail")'),
    );
  });

  it('parks until the timeout when the fallback is wait, then answers timed out', () => {
    const h = harness();
    h.host.askHumanFallback = 'wait';
    const out = run(h, 'ask_human', { question: 'Proceed?', timeout: '5m' });
    assert.equal(out.kind, 'park');
    if (out.kind !== 'park') return;
    assert.equal(out.wakeAt, 1_000 + 300_000);
    assert.deepEqual(out.complete(301_000), ok({ reply: null, timed_out: true }));
    const byDefault = run(h, 'ask_human', { question: '' });
    assert.equal(byDefault.kind === 'park' ? byDefault.wakeAt : -1, 1_000 + 86_400_000);
  });

  it('asks over the human channel when there is one', async () => {
    const h = harness();
    h.host.humanChannel = true;
    const seen: HumanQuestion[] = [];
    h.host.askHuman = (q) => {
      seen.push(q);
      return Promise.resolve(ok({ reply: 'yes', timed_out: false }));
    };
    const schema = { type: 'string', enum: ['yes', 'no'] };
    const out = run(h, 'ask_human', { question: '  Ship it?  ', schema, timeout: 60 });
    assert.deepEqual(await deferred(out), ok({ reply: 'yes', timed_out: false }));
    assert.deepEqual(seen, [{ question: 'Ship it?', schema, timeoutAt: 61_000, caller }]);
  });

  it('is not available with a channel but no askHuman', () => {
    const h = harness();
    h.host.humanChannel = true;
    assert.deepEqual(ready(run(h, 'ask_human', { question: 'q' })), err('"ask_human" is not available here'));
  });

  it('refuses a schema that is not a JSON Schema and a missing question', () => {
    assert.match(
      String(ready(run(harness(), 'ask_human', { question: 'q', schema: { type: 7 } })).result),
      /^invalid arguments for ask_human: \/schema is not a JSON Schema: /,
    );
    assert.deepEqual(
      ready(run(harness(), 'ask_human', {})),
      err("invalid arguments for ask_human: must have required property 'question'"),
    );
  });

  it('trims the question, defaults a blank one, and cuts it at 2000 bytes on a character boundary', () => {
    assert.equal(humanQuestionText('  Why?\n'), 'Why?');
    assert.equal(humanQuestionText('   '), 'The agent needs your input.');
    assert.equal(humanQuestionText(undefined), 'The agent needs your input.');
    assert.equal(humanQuestionText('x'.repeat(2_000)), 'x'.repeat(2_000));
    assert.equal(humanQuestionText('x'.repeat(2_001)), `${'x'.repeat(2_000)}…`);
    const euros = '€'.repeat(700);
    assert.equal(cutBytes(euros, 2_000), `${'€'.repeat(666)}…`, 'a 3-byte character is never split');
  });
});
