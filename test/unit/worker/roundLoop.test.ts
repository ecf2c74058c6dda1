import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnResult } from '../../../src/protocol/frames.js';
import { sealText, unansweredCalls } from '../../../src/worker/seal.js';
import type { McpCall } from '../../../src/worker/toolRunner.js';
import type { Playbook, ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import type { DepsOptions, PayloadOptions } from './turnHarness.js';
import { makeDeps, makePayload, roles, runWithTimeout, wireMessages } from './turnHarness.js';

async function withModel<T>(playbook: Playbook, fn: (model: ScriptedModel) => Promise<T>): Promise<T> {
  const model = await startScriptedModel(playbook);
  try {
    return await fn(model);
  } finally {
    await model.close();
  }
}

async function turnOn(model: ScriptedModel, payloadOpts: PayloadOptions = {}, depsOpts: DepsOptions = {}) {
  const payload = makePayload(model.url, payloadOpts);
  const { deps, bridge } = makeDeps(payload, depsOpts);
  const result = await runWithTimeout(payload, deps);
  return { result, bridge };
}

const toolContents = (r: TurnResult) => r.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));

describe('runTurn: acting', () => {
  it('two internal calls in one message: assistant, tool, tool, assistant', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'greeting', value: 'hello' } },
            { name: 'plan.create', arguments: { goal: 'greet', items: ['say hello'] } },
          ],
        },
        { content: 'unused' },
        { content: 'final answer: greeted' },
      ],
    };
    await withModel(playbook, async (model) => {
      const { result, bridge } = await turnOn(model);
      assert.equal(result.status, 'completed');
      assert.deepEqual(roles(result), ['assistant', 'tool', 'tool', 'assistant']);
      assert.equal(result.text, 'final answer: greeted');
      assert.equal(result.rounds, 2);
      assert.equal(result.tool_calls, 2);
      assert.deepEqual(result.usage, { input_tokens: 22, output_tokens: 12 });
      assert.deepEqual(
        bridge.calls.map((c) => c.name),
        ['memory.set', 'plan.create'],
      );
      assert.deepEqual(bridge.calls[0]?.args, { key: 'greeting', value: 'hello' });
      const events = bridge.progress.map((p) => p.event);
      assert.deepEqual(events, [
        'turn.think',
        'turn.round',
        'turn.tool',
        'turn.tool_done',
        'turn.tool',
        'turn.tool_done',
        'turn.think',
        'turn.round',
        'turn.text',
      ]);
      assert.deepEqual(bridge.progress[2]?.fields, { turn: 'turn-1', tool: 'memory.set', i: 1, of: 2 });
      // Tool cards and body text are their own feed events: the call with its result, then the answer.
      const card = bridge.progress[3]?.fields;
      assert.equal(card?.['tool'], 'memory.set');
      assert.deepEqual(card?.['arguments'], { key: 'greeting', value: 'hello' });
      assert.equal(card?.['is_error'], false);
      assert.equal(typeof card?.['result'], 'string');
      assert.equal(bridge.progress[8]?.fields['text'], 'final answer: greeted');
    });
  });

  it('routes internal, MCP and unknown calls; keys are turn-global; usage sums (AC-TURN-2)', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'k', value: 1 } },
            { name: 'fs.read', arguments: { path: '/a' } },
            { name: 'no.such.tool', arguments: {} },
          ],
        },
        { content: 'unused' },
        { content: 'unused' },
        { content: 'done', usage: { prompt_tokens: 100, completion_tokens: 20 } },
      ],
    };
    const mcp: McpCall[] = [];
    await withModel(playbook, async (model) => {
      const callMcp = async (call: McpCall) => {
        mcp.push(call);
        return { result: { text: 'file body' }, is_error: false };
      };
      const { result, bridge } = await turnOn(
        model,
        { turn: { tool_meta: { 'agent/ctx': 'root' } } },
        { deps: { callMcp } },
      );
      assert.equal(result.status, 'completed');
      assert.equal(result.rounds, 2);
      assert.equal(result.tool_calls, 3);
      assert.deepEqual(roles(result), ['assistant', 'tool', 'tool', 'tool', 'assistant']);
      assert.deepEqual(
        bridge.calls.map((c) => c.name),
        ['memory.set'],
        'only the internal call crossed the bridge',
      );
      assert.equal(mcp.length, 1);
      assert.equal(mcp[0]?.server, 'fs');
      assert.equal(mcp[0]?.tool, 'read');
      assert.deepEqual(mcp[0]?.meta, { 'agent/ctx': 'root', 'agent/idempotency_key': 'test/root#turn-1.1' });
      const unknown = result.messages[3];
      assert.ok(unknown?.role === 'tool' && unknown.is_error);
      assert.equal(unknown.content, "error: no such tool 'no.such.tool'");
      assert.deepEqual(result.usage, { input_tokens: 111, output_tokens: 27 });
    });
  });

  it('an MCP call without a transport is an error observation, not a failed turn', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'fs.read', arguments: { path: '/a' } }] }, { content: 'ok' }],
    };
    await withModel(playbook, async (model) => {
      const { result } = await turnOn(model);
      assert.equal(result.status, 'completed');
      assert.deepEqual(toolContents(result), ['tool transport error: MCP is not available in this build']);
    });
  });

  it('loop detection counts over the whole turn; the 4th identical call is not executed', async () => {
    const same = { name: 'memory.get', arguments: { key: 'same' } };
    const playbook: Playbook = {
      turns: [
        { tool_calls: [same, { name: 'sleep', arguments: { duration: '1ms' } }] },
        { content: 'unused' },
        { tool_calls: [same] },
        { tool_calls: [same, { name: 'memory.set', arguments: { key: 'k', value: 1 } }] },
        { content: 'unused' },
        {
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'other', value: 2 } },
            same,
            { name: 'plan.create', arguments: {} },
          ],
        },
      ],
    };
    await withModel(playbook, async (model) => {
      const { result, bridge } = await turnOn(model);
      assert.equal(result.status, 'loop_detected');
      assert.equal(result.error_kind, 'loop');
      assert.equal(result.error, 'the model repeated memory.get with identical arguments 4 times');
      assert.equal(result.rounds, 4);
      assert.equal(result.tool_calls, 7);
      assert.equal(bridge.calls.filter((c) => c.name === 'memory.get').length, 3, 'the 4th was not executed');
      assert.equal(bridge.calls.filter((c) => c.name === 'plan.create').length, 0);
      assert.deepEqual(unansweredCalls(result.messages), [], 'every call id has a result');
      const last = result.messages.slice(-2);
      assert.deepEqual(
        last.map((m) => m.role === 'tool' && m.content),
        [sealText('memory.get', 'loop_detected'), sealText('plan.create', 'loop_detected')],
      );
    });
  });

  it('finish acts after its round: a memory.set after it still runs; completed even with status failed', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'finish', arguments: { status: 'failed', output: { n: 3 } } },
            { name: 'memory.set', arguments: { key: 'after', value: true } },
          ],
        },
        { content: 'never asked' },
      ],
    };
    await withModel(playbook, async (model) => {
      const { result, bridge } = await turnOn(model);
      assert.equal(result.status, 'completed');
      assert.equal(result.rounds, 1);
      assert.deepEqual(result.finish, { status: 'failed', output: { n: 3 } });
      assert.equal(result.text, '{"n":3}');
      assert.deepEqual(
        bridge.calls.map((c) => c.name),
        ['finish', 'memory.set'],
      );
      assert.equal(model.requests.length, 1);
    });
  });

  it('cancel between calls seals the rest (AC-CANCEL-SEAL)', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'a', value: 1 } },
            { name: 'memory.get', arguments: { key: 'b' } },
            { name: 'plan.create', arguments: { goal: 'g', items: [] } },
          ],
        },
        { content: 'never' },
      ],
    };
    await withModel(playbook, async (model) => {
      const answer: DepsOptions['answer'] = (_name, _args, bridge) => {
        bridge.cancel.abort();
        return { result: { ok: true }, is_error: false };
      };
      const { result, bridge } = await turnOn(model, {}, { answer });
      assert.equal(result.status, 'cancelled');
      assert.equal(result.messages.length, 4);
      assert.equal(bridge.calls.length, 1);
      assert.equal(result.tool_calls, 1);
      const sealed = result.messages[2];
      assert.ok(sealed?.role === 'tool' && sealed.is_error);
      assert.equal(sealed.content, sealText('memory.get', 'cancelled'));
      assert.deepEqual(unansweredCalls(result.messages), []);
    });
  });

  it('an internal call with no answer becomes an error result', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'sleep', arguments: { duration: '1h' } }] }, { content: 'ok' }],
    };
    await withModel(playbook, async (model) => {
      const { result } = await turnOn(model, {}, { answer: () => null });
      assert.equal(result.status, 'completed');
      assert.deepEqual(toolContents(result), ['sleep: no answer from the supervisor (cancelled or deadline)']);
    });
  });

  it('tool names go out sanitized, come back dotted, and errors carry the ERROR: prefix', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'memory_set', arguments: { key: 'k' } }] }, { content: 'ok' }],
    };
    await withModel(playbook, async (model) => {
      const answer = () => ({ result: 'invalid arguments for memory.set: value is required', is_error: true });
      const { result, bridge } = await turnOn(model, {}, { answer });
      assert.equal(result.status, 'completed');
      assert.deepEqual(
        bridge.calls.map((c) => c.name),
        ['memory.set'],
      );
      const first = model.requests[0]?.body as { tools: Array<{ function: { name: string } }> };
      const names = first.tools.map((t) => t.function.name);
      assert.ok(names.includes('memory_set'));
      assert.ok(
        names.every((n) => /^[A-Za-z0-9_-]+$/.test(n)),
        names.join(),
      );
      const second = wireMessages(model.requests[1]?.body);
      const replayed = second.find((m) => m.role === 'assistant') as {
        tool_calls: Array<{ function: { name: string } }>;
      };
      assert.equal(replayed.tool_calls[0]?.function.name, 'memory_set');
      const toolMsg = second.find((m) => m.role === 'tool');
      assert.equal(toolMsg?.content, 'ERROR: invalid arguments for memory.set: value is required');
      assert.equal(second[0]?.role, 'system');
      assert.equal(second[0]?.content, 'You are a test agent.');
    });
  });
});
