import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { unansweredCalls } from '../../../src/worker/seal.js';
import {
  CONTINUE_PROMPT,
  EMPTY_ANSWER_PROMPT,
  ERR_EMPTY,
  ERR_NOBODY,
  RETRY_QUESTION,
  THINK_LESS_PROMPT,
} from '../../../src/worker/wrapUp.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import type { DepsOptions, PayloadOptions } from './turnHarness.js';
import { makeDeps, makePayload, roles, runWithTimeout, wireMessages } from './turnHarness.js';

type Fields = Record<string, unknown>;

/** Runs one turn against a scripted model, recording the `turn.wrapup` events the loop logs. */
async function turnWith(
  playbook: Playbook,
  payloadOpts: PayloadOptions = {},
  depsOpts: DepsOptions = {},
  dialect?: 'openai' | 'anthropic',
) {
  const model = await startScriptedModel(playbook);
  const lines: Fields[] = [];
  const log = createLogger({ write: (line) => lines.push(JSON.parse(line) as Fields) });
  try {
    const payload = makePayload(model.url, payloadOpts);
    if (dialect) payload.intelligence = { ...payload.intelligence, dialect };
    const { deps, bridge } = makeDeps(payload, { ...depsOpts, deps: { log, ...depsOpts.deps } });
    const result = await runWithTimeout(payload, deps);
    const wrapups = lines
      .filter((l) => l.event === 'turn.wrapup')
      .map((l) => ({ turn: l.turn, check: l.check, attempt: l.attempt, action: l.action }));
    const bodies = model.requests.map((r) => r.body as Fields);
    return { result, bridge, bodies, wrapups };
  } finally {
    await model.close();
  }
}

const lastUserText = (body: Fields | undefined): unknown => wireMessages(body).at(-1)?.content;
const ev = (check: string, attempt: number, action: string) => ({ turn: 'turn-1', check, attempt, action });

describe('runTurn wrap-up (a): cut off by the length limit', () => {
  it('continues, then completes with the parts joined; the delta holds one folded answer', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'The answer is forty', finish_reason: 'length', times: 1 }, { content: '-two.' }],
    };
    const { result, bodies, wrapups } = await turnWith(playbook);
    assert.equal(result.status, 'completed');
    assert.equal(result.text, 'The answer is forty-two.');
    assert.equal(result.rounds, 2);
    assert.deepEqual(roles(result), ['assistant']);
    const answer = result.messages[0];
    assert.equal(answer?.role === 'assistant' && answer.text, 'The answer is forty-two.');
    assert.deepEqual(wrapups, [ev('length', 1, 'continue')]);
    const second = wireMessages(bodies[1]).slice(-2);
    assert.deepEqual(
      second.map((m) => [m.role, m.content]),
      [
        ['assistant', 'The answer is forty'],
        ['user', CONTINUE_PROMPT],
      ],
    );
  });

  it('a fourth cut-off ends completed with all parts and a note', async () => {
    const { result, wrapups, bodies } = await turnWith({ turns: [{ content: 'la ', finish_reason: 'length' }] });
    assert.equal(result.status, 'completed');
    assert.equal(result.rounds, 4);
    assert.equal(bodies.length, 4);
    assert.equal(result.text, 'la la la la ');
    assert.deepEqual(roles(result), ['assistant', 'note']);
    const note = result.messages[1];
    assert.equal(
      note?.role === 'note' && note.text,
      'the answer was cut off by the length limit 4 times; it may be incomplete',
    );
    assert.deepEqual(wrapups, [
      ev('length', 1, 'continue'),
      ev('length', 2, 'continue'),
      ev('length', 3, 'continue'),
      ev('length', 4, 'give_up'),
    ]);
  });

  it('continuations count against limits: max_rounds 2 ends exhausted_steps', async () => {
    const { result } = await turnWith(
      { turns: [{ content: 'la ', finish_reason: 'length' }] },
      { turn: { max_rounds: 2 } },
    );
    assert.equal(result.status, 'exhausted_steps');
    assert.equal(result.rounds, 2);
    assert.equal(result.text, 'la la ', 'the parts produced so far are still reported');
    assert.deepEqual(roles(result), ['assistant']);
  });

  it('a structured answer cut off mid-JSON is continued, then parsed whole', async () => {
    const playbook: Playbook = {
      turns: [{ content: '{"intent": "ta', finish_reason: 'length', times: 1 }, { content: 'sk"}' }],
    };
    const schema = { type: 'object', properties: { intent: { type: 'string' } }, required: ['intent'] };
    const { result, wrapups } = await turnWith(playbook, { turn: { kind: 'think', output_schema: schema } });
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.value, { intent: 'task' });
    assert.deepEqual(wrapups, [ev('length', 1, 'continue')]);
  });
});

describe('runTurn wrap-up (b): all output went to reasoning', () => {
  const thinking: Playbook = {
    turns: [{ reasoning: 'hmm, let me think about this at length', finish_reason: 'length' }],
  };

  it('two reminders, then ask_human; nobody reachable ⇒ failed with the reason', async () => {
    const answer: DepsOptions['answer'] = (name) =>
      name === 'ask_human'
        ? { result: 'ask_human: no person is reachable (agent.ask_human_fallback is "fail")', is_error: true }
        : null;
    const { result, bridge, bodies, wrapups } = await turnWith(thinking, {}, { answer });
    assert.equal(result.status, 'failed');
    assert.equal(result.error, ERR_NOBODY);
    assert.equal(result.rounds, 3);
    assert.deepEqual(bridge.calls, [{ name: 'ask_human', args: { question: RETRY_QUESTION } }]);
    assert.equal(result.tool_calls, 0, 'the question is not a model tool call');
    assert.deepEqual(result.messages, [], 'reminders stay out of the delta');
    assert.equal(lastUserText(bodies[1]), THINK_LESS_PROMPT);
    assert.equal(lastUserText(bodies[2]), THINK_LESS_PROMPT);
    assert.deepEqual(wrapups, [
      ev('reasoning', 1, 'nudge'),
      ev('reasoning', 2, 'nudge'),
      ev('reasoning', 3, 'ask_human'),
      ev('reasoning', 3, 'fail'),
    ]);
    assert.ok(!JSON.stringify(result).includes('let me think'), 'reasoning never reaches the result');
  });

  it('a person says yes ⇒ one more try, which answers', async () => {
    const playbook: Playbook = {
      turns: [{ reasoning: 'thinking', finish_reason: 'length', times: 3 }, { content: 'Here it is.' }],
    };
    const answer: DepsOptions['answer'] = () => ({ result: { reply: 'yes', timed_out: false }, is_error: false });
    const { result, wrapups } = await turnWith(playbook, {}, { answer });
    assert.equal(result.status, 'completed');
    assert.equal(result.text, 'Here it is.');
    assert.equal(result.rounds, 4);
    assert.deepEqual(
      wrapups.map((w) => w.action),
      ['nudge', 'nudge', 'ask_human', 'nudge'],
    );
  });
});

describe('runTurn wrap-up (c): work done but the wrap-up is empty', () => {
  const work = { tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }] };

  it('empty twice after a tool round ⇒ failed, never completed with nothing', async () => {
    const { result, bodies, wrapups } = await turnWith({ turns: [work, { content: '' }] });
    assert.equal(result.status, 'failed');
    assert.equal(result.error, ERR_EMPTY);
    assert.equal(result.rounds, 3);
    assert.deepEqual(roles(result), ['assistant', 'tool']);
    assert.equal(lastUserText(bodies[2]), EMPTY_ANSWER_PROMPT);
    assert.deepEqual(wrapups, [ev('empty', 1, 'nudge'), ev('empty', 2, 'fail')]);
    assert.deepEqual(unansweredCalls(result.messages), []);
  });

  it('empty once, then text ⇒ completed', async () => {
    const { result, wrapups } = await turnWith({ turns: [work, { content: '', times: 1 }, { content: 'Saved k.' }] });
    assert.equal(result.status, 'completed');
    assert.equal(result.text, 'Saved k.');
    assert.deepEqual(roles(result), ['assistant', 'tool', 'assistant']);
    assert.deepEqual(wrapups, [ev('empty', 1, 'nudge')]);
  });
});

describe('runTurn wrap-up (d): tool-call arguments cut off by the length limit', () => {
  const truncated = {
    tool_calls: [{ name: 'memory.set', arguments: '{"key": "k", "value": "a very lo' }],
    finish_reason: 'length',
  };

  it('the call never runs; the same request goes again with the cap doubled', async () => {
    const playbook: Playbook = {
      turns: [
        { ...truncated, times: 1 },
        { tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 'a very long value' } }], times: 1 },
        { content: 'Stored.' },
      ],
    };
    const { result, bridge, bodies, wrapups } = await turnWith(playbook);
    assert.equal(result.status, 'completed');
    assert.deepEqual(bridge.calls, [{ name: 'memory.set', args: { key: 'k', value: 'a very long value' } }]);
    assert.equal(bodies[0]?.max_tokens, 4096);
    assert.equal(bodies[1]?.max_tokens, 8192);
    assert.deepEqual(bodies[1]?.messages, bodies[0]?.messages, 'nothing was appended for the re-send');
    assert.deepEqual(wrapups, [ev('truncated_args', 1, 'resend')]);
    assert.deepEqual(roles(result), ['assistant', 'tool', 'assistant']);
    assert.ok(!JSON.stringify(result.messages).includes('_raw'));
  });

  it('still cut off at 4× the base cap ⇒ failed, the call never executed', async () => {
    const { result, bridge, bodies, wrapups } = await turnWith({ turns: [truncated] });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /^wrap-up: a tool call's arguments were cut off .* 16384 tokens/);
    assert.deepEqual(
      bodies.map((b) => b.max_tokens),
      [4096, 8192, 16384],
    );
    assert.equal(bridge.calls.length, 0);
    assert.equal(result.tool_calls, 0);
    assert.deepEqual(result.messages, []);
    assert.deepEqual(
      wrapups.map((w) => w.action),
      ['resend', 'resend', 'fail'],
    );
  });
});

describe('runTurn: reasoning replay', () => {
  const playbook: Playbook = {
    turns: [
      { reasoning: 'I should look the key up first.', tool_calls: [{ name: 'memory.get', arguments: { key: 'k' } }] },
      { content: 'k is 1.' },
    ],
  };

  it('re-sends the parts with their assistant message to the same model, never into the delta', async () => {
    const { result, bodies } = await turnWith(playbook);
    assert.equal(result.status, 'completed');
    const replayed = wireMessages(bodies[1]).find((m) => m.role === 'assistant');
    assert.equal(replayed?.reasoning_content, 'I should look the key up first.');
    assert.ok(!JSON.stringify(result).includes('look the key up'));
  });

  it('a budget degrade swaps the model: the parts are not sent to it', async () => {
    let asked = 0;
    const admitModelCall = async () =>
      asked++ === 0 ? { kind: 'go' as const } : { kind: 'go' as const, model: 'small' };
    const { result, bodies } = await turnWith(
      playbook,
      { turn: { budget_admission: true } },
      { deps: { admitModelCall } },
    );
    assert.equal(result.status, 'completed');
    assert.equal(bodies[1]?.model, 'small', 'premise: the second call went to the degrade model');
    const replayed = wireMessages(bodies[1]).find((m) => m.role === 'assistant');
    assert.equal(replayed?.reasoning_content, undefined);
  });

  it('anthropic: the thinking block goes back first, with its signature, in the tool-use message', async () => {
    const { result, bodies } = await turnWith(playbook, {}, {}, 'anthropic');
    assert.equal(result.status, 'completed');
    const body = bodies[1] as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    const assistant = body.messages.find((m) => m.role === 'assistant');
    assert.deepEqual(
      assistant?.content.map((b) => b.type),
      ['thinking', 'tool_use'],
    );
    assert.equal(assistant?.content[0]?.thinking, 'I should look the key up first.');
    assert.ok(String(assistant?.content[0]?.signature).startsWith('sig-'));
    assert.ok(!JSON.stringify(result).includes('look the key up'));
  });
});
