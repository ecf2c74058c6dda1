// think and decide (reference §13): the think request they build, their refusals, and their deferred answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ThinkRequest, ToolResult } from '../../../src/tools/internalTools.js';
import { caller, deferred, err, type Harness, harness, ok, ready, run } from './fakeHost.js';

/** Gives the harness a think capability that records each request and answers with `answer`. */
function withThink(h: Harness, answer: ToolResult | ((req: ThinkRequest) => Promise<ToolResult>)): ThinkRequest[] {
  const seen: ThinkRequest[] = [];
  h.host.think = (req) => {
    seen.push(req);
    return typeof answer === 'function' ? answer(req) : Promise.resolve(answer);
  };
  return seen;
}

const FREE_SYSTEM =
  'You are the reasoning module of agent-x. Think carefully about the request and reply with your conclusion ' +
  '(a JSON object when the request asks for structure). No tools are available.';
const SCHEMA_SYSTEM =
  'You are the reasoning module of agent-x. Think carefully about the request and reply with ONLY one JSON ' +
  'object matching the schema. No tools are available.';

describe('think', () => {
  it('asks a think child with the memory it reads, then the prompt, and answers its value', async () => {
    const h = harness();
    void h.memory.set({ key: 'facts', value: { sky: 'blue', n: [1, 2] }, expires: null, updated: 0 });
    void h.memory.set({ key: 'note', value: 'hi', expires: null, updated: 0 });
    const seen = withThink(h, ok({ answer: 42 }));
    const out = run(h, 'think', { prompt: '  What now?  ', reads: ['facts', 'absent', 'note', 'facts'] });
    assert.deepEqual(await deferred(out), ok({ answer: 42 }));
    assert.deepEqual(seen, [
      {
        purpose: 'think',
        system: FREE_SYSTEM,
        messages: [
          { role: 'system', text: 'memory[facts] = {"sky":"blue","n":[1,2]}' },
          { role: 'system', text: 'memory[note] = "hi"' },
          { role: 'user', text: 'What now?' },
        ],
        caller,
      },
    ]);
  });

  it('passes output_schema on and switches the system prompt to ONLY one JSON object', async () => {
    const h = harness();
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const seen = withThink(h, ok({ n: 1 }));
    assert.deepEqual(await deferred(run(h, 'think', { prompt: 'count', output_schema: schema })), ok({ n: 1 }));
    assert.equal(seen[0]?.system, SCHEMA_SYSTEM);
    assert.deepEqual(seen[0]?.schema, schema);
    assert.deepEqual(seen[0]?.messages, [{ role: 'user', text: 'count' }]);
  });

  it('accepts any JSON value and passes a think error result through', async () => {
    const h = harness();
    withThink(h, ok('just a string'));
    assert.deepEqual(await deferred(run(h, 'think', { prompt: 'p' })), ok('just a string'));
    withThink(h, err('think failed: answer does not match the output schema'));
    assert.deepEqual(
      await deferred(run(h, 'think', { prompt: 'p' })),
      err('think failed: answer does not match the output schema'),
    );
  });

  it('refuses a blank prompt, a bad output_schema and extra arguments without asking', () => {
    const h = harness();
    const seen = withThink(h, ok(1));
    assert.deepEqual(ready(run(h, 'think', { prompt: '   ' })), err('think: prompt must not be empty'));
    assert.deepEqual(
      ready(run(h, 'think', { prompt: '' })),
      err('invalid arguments for think: /prompt must NOT have fewer than 1 characters'),
    );
    const bad = ready(run(h, 'think', { prompt: 'p', output_schema: { type: 'objekt' } }));
    assert.equal(bad.is_error, true);
    assert.match(String(bad.result), /^invalid arguments for think: \/output_schema is not a JSON Schema: /);
    assert.deepEqual(
      ready(run(h, 'think', { prompt: 'p', tools: ['x'] })),
      err("invalid arguments for think: must not have property 'tools'"),
    );
    assert.deepEqual(
      ready(run(h, 'think', { _raw: '{prompt: p' })),
      err('invalid arguments for think: not valid JSON: {prompt: p'),
    );
    assert.equal(seen.length, 0);
  });

  it('is not available without a think capability', () => {
    assert.deepEqual(ready(run(harness(), 'think', { prompt: 'p' })), err('"think" is not available here'));
  });
});

describe('decide', () => {
  it('asks for one of the options with a confidence under an enum schema', async () => {
    const h = harness();
    const seen = withThink(h, ok({ choice: 'tea', confidence: 0.8 }));
    const out = run(h, 'decide', { question: 'Which drink?', options: ['tea', 'coffee'], context: 'It is late.' });
    assert.deepEqual(await deferred(out), ok({ choice: 'tea', confidence: 0.8 }));
    const req = seen[0];
    assert.equal(req?.purpose, 'decide');
    assert.match(req?.system ?? '', /^You are the decision module of agent-x\. Choose exactly one of the options/);
    assert.match(req?.system ?? '', /No tools are available\.$/);
    assert.deepEqual(req?.messages, [
      { role: 'system', text: 'Context: It is late.' },
      { role: 'user', text: 'Which drink?\n\nOptions:\n- "tea"\n- "coffee"' },
    ]);
    assert.deepEqual(req?.schema, {
      type: 'object',
      properties: {
        choice: { enum: ['tea', 'coffee'] },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['choice', 'confidence'],
      additionalProperties: false,
    });
    assert.deepEqual(req?.caller, caller);
  });

  it('refuses one option, seventeen, duplicates, and a blank option', () => {
    const h = harness();
    const seen = withThink(h, ok({}));
    assert.deepEqual(
      ready(run(h, 'decide', { question: 'q', options: ['only'] })),
      err('invalid arguments for decide: /options must NOT have fewer than 2 items'),
    );
    const many = Array.from({ length: 17 }, (_, i) => `o${i}`);
    assert.deepEqual(
      ready(run(h, 'decide', { question: 'q', options: many })),
      err('invalid arguments for decide: /options must NOT have more than 16 items'),
    );
    assert.match(
      String(ready(run(h, 'decide', { question: 'q', options: ['a', 'a'] })).result),
      /^invalid arguments for decide: \/options must NOT have duplicate items/,
    );
    assert.deepEqual(
      ready(run(h, 'decide', { question: 'q', options: ['a', ''] })),
      err('invalid arguments for decide: /options/1 must NOT have fewer than 1 characters'),
    );
    assert.deepEqual(
      ready(run(h, 'decide', { question: 'q', options: ['a', '  '] })),
      err('decide: option 2 is blank'),
    );
    assert.deepEqual(
      ready(run(h, 'decide', { question: ' ', options: ['a', 'b'] })),
      err('decide: question must not be empty'),
    );
    assert.equal(seen.length, 0);
  });

  it('turns an answer outside the options or out of range into an error result', async () => {
    const h = harness();
    withThink(h, ok({ choice: 'milk', confidence: 0.5 }));
    assert.deepEqual(
      await deferred(run(h, 'decide', { question: 'q', options: ['tea', 'coffee'] })),
      err('decide: the answer "milk" is not one of the options'),
    );
    withThink(h, ok({ choice: 'tea', confidence: 2 }));
    assert.deepEqual(
      await deferred(run(h, 'decide', { question: 'q', options: ['tea', 'coffee'] })),
      err('result of decide does not match its output schema: /confidence must be <= 1'),
    );
    assert.deepEqual(h.schemaEvents, [['decide', '/confidence must be <= 1']]);
  });

  it('is not available without a think capability', () => {
    assert.deepEqual(
      ready(run(harness(), 'decide', { question: 'q', options: ['a', 'b'] })),
      err('"decide" is not available here'),
    );
  });
});
