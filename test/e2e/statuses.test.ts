// Each turn status reached from a scripted model through the real binary, with the job's exit code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

async function job(model: ScriptedModel, prompt: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runAgentd(['--intelligence', model.url, '--model', 'test-model', '--prompt', prompt, ...extra], {
    env: { AGENTD_STATE_DIR: tempStateDir(), ...env },
  });
}

describe('job exit codes by turn status', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'plain answer' }],
      match: [
        {
          when_contains: 'two internal calls',
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'greeting', value: 'hello' } },
            { name: 'plan.create', arguments: { goal: 'greet', items: ['say hello'] } },
          ],
          times: 1,
        },
        { when_contains: 'two internal calls', content: 'done: greeted' },
        { when_contains: 'loop forever', tool_calls: [{ name: 'memory.get', arguments: { key: 'same' } }] },
        { when_contains: 'count up', tool_calls: [{ name: 'memory.list', arguments: { limit: 1 } }], times: 1 },
        { when_contains: 'count up', tool_calls: [{ name: 'memory.list', arguments: { limit: 2 } }], times: 1 },
        { when_contains: 'count up', tool_calls: [{ name: 'memory.list', arguments: { limit: 3 } }] },
        {
          when_contains: 'spend tokens',
          tool_calls: [{ name: 'memory.list', arguments: {} }],
          usage: { prompt_tokens: 500, completion_tokens: 500 },
        },
        { when_contains: 'hang please', content: 'late', delay_ms: 60_000 },
        {
          when_contains: 'sleep past the deadline',
          tool_calls: [
            { name: 'sleep', arguments: { duration: '10m' } },
            { name: 'memory.set', arguments: { key: 'late', value: 1 } },
          ],
        },
        { when_contains: 'unauthorized', http_status: 401, body: '{"error":{"message":"bad key"}}' },
        {
          when_contains: 'finish refused',
          tool_calls: [{ name: 'finish', arguments: { status: 'refused', output: 'no' } }],
        },
      ],
    });
  });
  after(async () => model.close());

  it('completed exits 0 and prints only the reply; the transcript is user, the date note, assistant, tool, tool, assistant', async () => {
    const dir = tempStateDir();
    const run = await job(model, 'please make two internal calls', [], { AGENTD_STATE_DIR: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'done: greeted\n');
    assert.equal(eventsNamed(run, 'tool.request').length, 2);
    const done = eventsNamed(run, 'turn.done', 'supervisor');
    assert.equal(done.length, 1);
    assert.equal(done[0]?.status, 'completed');
    assert.equal(done[0]?.tool_calls, 2);
    const store = new SqliteStore(dir);
    const root = (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'root');
    await store.close();
    assert.deepEqual(
      root?.messages.map((m) => m.role),
      ['user', 'note', 'assistant', 'tool', 'tool', 'assistant'],
    );
  });

  it('loop_detected exits 3', async () => {
    const run = await job(model, 'loop forever');
    assert.equal(run.code, 3, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'loop_detected');
    assert.equal(run.stdout, '');
  });

  it('exhausted_steps exits 7 (AGENTD_LIMITS_RUN_STEPS)', async () => {
    const run = await job(model, 'count up', [], { AGENTD_LIMITS_RUN_STEPS: '2' });
    assert.equal(run.code, 7, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'exhausted_steps');
  });

  it('exhausted_tokens exits 7', async () => {
    const run = await job(model, 'spend tokens please', [], { AGENTD_LIMITS_RUN_TOKENS: '10' });
    assert.equal(run.code, 7, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'exhausted_tokens');
  });

  it('deadline exits 124, aborting the model call in flight', async () => {
    const run = await job(model, 'hang please', ['--deadline', '1s']);
    assert.equal(run.code, 124, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'deadline');
  });

  it('failed with an endpoint error exits 4, and the token never reaches stderr', async () => {
    const run = await job(model, 'unauthorized', [], {
      AGENTD_INTELLIGENCE_TOKEN: '{{secret:TEST_TOKEN}}',
      TEST_TOKEN: 'sk-test-supersecret-123',
    });
    assert.equal(run.code, 4, run.stderr);
    const done = eventsNamed(run, 'turn.done', 'supervisor')[0];
    assert.equal(done?.status, 'failed');
    assert.match(String(done?.err), /^intel:/);
    assert.ok(!run.stderr.includes('sk-test-supersecret-123'));
    const seen = model.requests.filter((r) => JSON.stringify(r.body).includes('unauthorized'));
    assert.ok(seen.some((r) => String(r.headers.authorization) === 'Bearer sk-test-supersecret-123'));
  });

  it('an unreachable model exits 4 promptly', async () => {
    const run = await runAgentd(['--intelligence', 'http://127.0.0.1:9/v1', '--prompt', 'hello'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
    });
    assert.equal(run.code, 4, run.stderr);
  });

  it('a finish with status refused exits 5; the turn itself completed', async () => {
    const run = await job(model, 'finish refused');
    assert.equal(run.code, 5, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'completed');
    assert.equal(eventsNamed(run, 'root.finish')[0]?.status, 'refused');
    assert.equal(run.stdout, 'no\n');
  });

  it('calls left in a round when the deadline passes are sealed, not run', async () => {
    const dir = tempStateDir();
    const run = await job(model, 'sleep past the deadline', ['--deadline', '1s'], { AGENTD_STATE_DIR: dir });
    assert.equal(run.code, 124, run.stderr);
    const store = new SqliteStore(dir);
    const root = (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'root');
    const late = await store.memory.get('late', Date.now());
    await store.close();
    const sealed = root?.messages.find((m) => m.role === 'tool' && m.name === 'memory.set');
    assert.ok(sealed?.role === 'tool' && sealed.is_error, 'premise: the second call has a result');
    assert.match(String(sealed.content), /not executed — the turn ended \(deadline\)/);
    assert.equal(late, null, 'memory.set never ran');
  });
});
