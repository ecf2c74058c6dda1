// The embedding API end to end over real worker processes and the scripted model: createAgent's inline options
// go through the config's own validation, run() reports its events in order and its result with usage and turn
// id, cancel() kills the worker, and defineTool's zod schema refuses arguments before `run` is called.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import type { RunEvent } from '../../../src/domain/runEvent.js';
import { DaemonError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { processGone, waitUntil, within } from '../wait.js';

const MODULE = new URL('../../fixtures/definedTools.js', import.meta.url);
const temp = () => mkdtempSync(join(tmpdir(), 'agentd-run-'));

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('agent.run', () => {
  let model: ScriptedModel;
  const log = join(temp(), 'calls.log');
  const pidFile = join(temp(), 'slow.pid');
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'all done', usage: { prompt_tokens: 50, completion_tokens: 5 } }],
      match: [
        {
          when_contains: 'check my orders',
          times: 1,
          tool_calls: [
            { name: 'lookup_order', arguments: { order: 'ORD-7', log } },
            { name: 'lookup_order', arguments: { order: '123', log } },
          ],
          usage: { prompt_tokens: 40, completion_tokens: 10 },
        },
        { when_contains: 'take your time', times: 1, tool_calls: [{ name: 'slow', arguments: { pidFile } }] },
      ],
    });
  });
  after(async () => model.close());

  const agent = () =>
    createAgent({
      name: 'embedded',
      intelligence: model.url,
      store: temp(),
      config: { env: {}, values: { limits: { run: { steps: 7 } } } },
      tools: [],
      toolsModule: MODULE,
      log: silentLogger,
    });

  it('inline options are a config layer: applied, and validated like a file', async () => {
    const a = await agent();
    try {
      assert.equal(a.config.agent.name, 'embedded');
      assert.equal(a.config.limits.run.steps, 7);
      assert.deepEqual(a.config.intelligence.endpoints, [model.url]);
      assert.equal(Object.hasOwn(a, 'supervisor'), false, 'the supervisor is not part of the agent');
    } finally {
      await a.close();
    }
    const bad = createAgent({ store: 'memory', config: { env: {}, values: { agent: { nmae: 'x' } } } });
    await assert.rejects(bad, (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'config_invalid');
      assert.match(err.message, /^createAgent options:\d+: unknown key 'agent\.nmae' \(did you mean 'agent\.name'\?\)/);
      return true;
    });
  });

  it('reports events in order and a result with usage; zod refuses a bad argument before run', async () => {
    const a = await agent();
    try {
      const run = await a.run('check my orders', { conversation: 'orders' });
      const [events, result] = await within(Promise.all([collect(run.events), run.result]), 30_000, 'the run');
      assert.equal(result.status, 'completed', result.error);
      assert.equal(result.reply, 'all done');
      assert.deepEqual(result.usage, { input_tokens: 90, output_tokens: 15 });
      assert.match(String(result.turnId), /^turn-/);
      const types = events.map((e) => e.type);
      assert.equal(types[0], 'accepted');
      assert.equal(types.at(-1), 'done');
      const order = ['accepted', 'thinking', 'round', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'done'];
      assert.deepEqual(
        types.filter((t) => order.includes(t)),
        [
          'accepted',
          'thinking',
          'round',
          'tool_call',
          'tool_result',
          'tool_call',
          'tool_result',
          'thinking',
          'round',
          'done',
        ],
      );
      assert.ok(events.every((e) => e.runId === run.id));
      const results = events.filter((e) => e.type === 'tool_result');
      assert.equal(results[0]?.isError, false);
      assert.equal(results[1]?.isError, true);
      assert.match(String(results[1]?.result), /lookup_order: invalid arguments: order: expected an id like ORD-123/);
      // The premise: JSON Schema alone passes "123" (a string); only the zod refinement stops it, before run.
      assert.equal(readFileSync(log, 'utf8'), 'ORD-7\n', 'run saw the valid call only');
      const again = await collect(run.events);
      assert.deepEqual(again, events, 'a second iteration replays the same events');
    } finally {
      await a.close();
    }
  });

  it('cancel() ends the run cancelled and kills its worker', async () => {
    const a = await agent();
    try {
      const run = await a.run('take your time');
      await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 20_000, 'the slow tool');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.equal(processGone(pid), false, 'the worker runs the tool');
      run.cancel();
      const result = await within(run.result, 20_000, 'the cancelled run');
      assert.equal(result.status, 'cancelled');
      await waitUntil(() => processGone(pid), 20_000, 'the worker is gone');
    } finally {
      await a.close();
    }
  });

  it('an aborted signal cancels the run', async () => {
    const a = await agent();
    try {
      const controller = new AbortController();
      const run = await a.run('take your time', { signal: controller.signal, conversation: 'other' });
      controller.abort();
      const result = await within(run.result, 20_000, 'the aborted run');
      assert.equal(result.status, 'cancelled');
    } finally {
      await a.close();
    }
  });

  it('a signal aborted while the message is being accepted still cancels the run', async () => {
    const a = await agent();
    try {
      const controller = new AbortController();
      // The abort lands while accept awaits its durable commit: no listener is attached yet, so without the check
      // after accept the abort is lost and the quick answer below comes back `completed`.
      const starting = a.run('answer quickly', { signal: controller.signal, conversation: 'aborted-early' });
      controller.abort();
      const run = await starting;
      const result = await within(run.result, 20_000, 'the aborted run');
      assert.equal(result.status, 'cancelled');
    } finally {
      await a.close();
    }
  });

  it('mode applies to a new conversation: this message and the next run in plan mode', async () => {
    const a = await agent();
    const planNote = (i: number) => JSON.stringify(model.requests[i]?.body).includes('Plan mode:');
    try {
      const before = model.requests.length;
      // A conversation that does not exist yet: before the mode rode on the message, it was silently ignored.
      const first = await a.run('propose something', { conversation: 'fresh-plan', mode: 'plan' });
      assert.equal((await within(first.result, 20_000, 'the plan run')).status, 'completed');
      assert.equal(planNote(before), true, 'the first turn carries the plan-mode reminder');
      const after = model.requests.length;
      const second = await a.run('and then?', { conversation: 'fresh-plan' });
      await within(second.result, 20_000, 'the next run');
      assert.equal(planNote(after), true, 'the mode stays for the conversation');
      const other = model.requests.length;
      const plain = await a.run('no mode here', { conversation: 'fresh-plain' });
      await within(plain.result, 20_000, 'the plain run');
      assert.equal(planNote(other), false, 'the premise: a turn without plan mode has no reminder');
    } finally {
      await a.close();
    }
  });
});
