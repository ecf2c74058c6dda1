// The model side through the binary: both wires under the request rules, roles on declared models, endpoint
// failover, a 401, and the wrap-up checks.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> };

describe('intelligence', () => {
  let model: ScriptedModel;
  let down: ScriptedModel;
  before(async () => {
    down = await startScriptedModel({ turns: [{ http_status: 503 }] });
    model = await startScriptedModel({
      turns: [{ content: 'answer' }],
      match: [
        { when_contains: 'loop on', times: 4, tool_calls: [{ name: 'memory.get', arguments: { key: 'same' } }] },
        { when_contains: 'bad tool', times: 1, tool_calls: [{ name: 'no.such.tool', arguments: {} }] },
        { when_contains: 'failing tool', times: 1, tool_calls: [{ name: 'no.such.tool', arguments: {} }] },
        { when_contains: 'think hard', times: 1, tool_calls: [{ name: 'think', arguments: { prompt: 'ponder' } }] },
        { when_contains: 'reasoning module', content: { thought: 'done' } },
        { when_contains: 'work then nothing', times: 1, tool_calls: [{ name: 'memory.list', arguments: {} }] },
        { when_contains: 'work then nothing', content: '' },
        { when_contains: 'long story', times: 1, content: 'Once upon', finish_reason: 'length' },
        { when_contains: 'Continue exactly where it stopped', content: ' a time.' },
        { when_contains: 'refuse me', http_status: 401, body: '{"error":{"message":"no"}}' },
      ],
    });
  });
  after(async () => {
    await model.close();
    await down.close();
  });

  const job = (prompt: string, env: Record<string, string>, extra: string[] = []) =>
    runAgentd(['--intelligence', model.url, '--model', 'm1', '--prompt', prompt, ...extra], { env });

  it('the Anthropic wire hoists every system message, including notes, and sends no temperature', async () => {
    const dir = tempStateDir();
    const env = { AGENTD_STATE_DIR: dir, AGENTD_INTELLIGENCE_DIALECT: 'anthropic' };
    const first = await job('loop on this', env);
    assert.equal(first.code, 3, first.stderr);
    const before = model.requests.length;
    const second = await job('bad tool please', env);
    assert.equal(second.code, 0, second.stderr);
    const sent = model.requests.slice(before);
    assert.ok(sent.every((r) => r.wire === 'anthropic'));
    const body = sent[0]?.body as Body;
    assert.equal('temperature' in body, false);
    assert.match(JSON.stringify(body.system), /\[note\] turn ended with status loop_detected/);
    assert.ok(
      body.messages.every((m) => m.role !== 'system'),
      'no system message left in place',
    );
    const last = sent.at(-1)?.body as Body;
    const results = JSON.stringify(last.messages);
    assert.match(results, /"tool_result"/);
    assert.match(results, /"is_error":true/);
  });

  it('the OpenAI wire sends temperature 0, underscored tool names and ERROR: on failed tools', async () => {
    const before = model.requests.length;
    const run = await job('a failing tool', { AGENTD_STATE_DIR: tempStateDir() });
    assert.equal(run.code, 0, run.stderr);
    const sent = model.requests.slice(before).map((r) => r.body as Body);
    assert.equal(sent[0]?.temperature, 0);
    const names = ((sent[0]?.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
    assert.ok(names.includes('context_compact') && names.includes('tools_more') && !names.some((n) => n.includes('.')));
    const tool = sent.at(-1)?.messages.find((m) => m.role === 'tool');
    assert.match(String(tool?.content), /^ERROR: /);
  });

  it('a role pointed at a second declared model sends its calls there', async () => {
    const dir = tempStateDir();
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      'intelligence:\n  models:\n    main: {model: main-model}\n    thinker: {model: thinker-model}\n' +
        '  roles: {turn: main, think: thinker}\n',
    );
    const before = model.requests.length;
    const run = await runAgentd(['--config', file, '--intelligence', model.url, '--prompt', 'think hard'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(run.code, 0, run.stderr);
    const models = model.requests.slice(before).map((r) => (r.body as Body).model);
    assert.deepEqual([...new Set(models)].sort(), ['main-model', 'thinker-model']);
    const thinkCall = model.requests.slice(before).find((r) => JSON.stringify(r.body).includes('reasoning module'));
    assert.equal((thinkCall?.body as Body | undefined)?.model, 'thinker-model');
  });

  it('endpoint A answering 503 fails over to B, and the turn completes there', async () => {
    const run = await runAgentd(['--intelligence', `${down.url},${model.url}`, '--prompt', 'hello over failover'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'answer\n');
    assert.equal(down.requests.length, 3, 'the first endpoint was tried and retried twice');
  });

  it('a 401 exits 4 after exactly one request', async () => {
    const before = model.requests.length;
    const run = await job('refuse me', { AGENTD_STATE_DIR: tempStateDir() });
    assert.equal(run.code, 4, run.stderr);
    assert.equal(model.requests.length - before, 1);
  });

  it('wrap-up: work done but an empty answer is retried once, then the turn fails (never completed with nothing)', async () => {
    const run = await job('work then nothing', { AGENTD_STATE_DIR: tempStateDir() });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'failed');
    assert.match(String(eventsNamed(run, 'turn.done', 'supervisor')[0]?.err), /gave no final answer/);
    assert.deepEqual(
      eventsNamed(run, 'turn.wrapup').map((e) => e.check),
      ['empty', 'empty'],
    );
  });

  it('wrap-up: an answer cut off by the length limit is continued and joined', async () => {
    const run = await job('tell a long story', { AGENTD_STATE_DIR: tempStateDir() });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Once upon a time.\n');
    assert.equal(eventsNamed(run, 'turn.wrapup')[0]?.check, 'length');
  });
});
