// Anthropic prompt-cache tokens through the binary: they are reported apart and never counted as input, so a
// per-turn token limit and a budget do not run out under prompt caching; /metrics counts them by direction
// (issue 13 item 11, reference §5.3, §15).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { asTask, send, startDaemon } from './daemon.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const cached = { prompt_tokens: 20, completion_tokens: 7, cache_read_tokens: 5000, cache_write_tokens: 300 };

describe('anthropic cache tokens', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [
        { tool_calls: [{ name: 'memory.list', arguments: {} }], usage: cached },
        { content: 'done', usage: cached },
      ],
    });
  });
  after(async () => model.close());

  it('a 1,000-token turn limit survives 10,600 cached tokens; cache reads and writes are reported apart', async () => {
    const env = {
      AGENTD_STATE_DIR: tempStateDir(),
      AGENTD_INTELLIGENCE_DIALECT: 'anthropic',
      // Premise: counting the cache as input (the old rule) spends 5,327 tokens in the first round, over this limit,
      // and the job would exit 7 (exhausted_tokens) before the second model call.
      AGENTD_LIMITS_RUN_TOKENS: '1000',
    };
    const run = await runAgentd(['--intelligence', model.url, '--model', 'claude-x', '--prompt', 'list memory'], {
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'done\n');
    assert.equal(model.requests.length, 2);
    const done = eventsNamed(run, 'turn.done', 'worker')[0];
    assert.equal(done?.tokens_in, 40);
    assert.equal(done?.tokens_out, 14);
    assert.equal(done?.tokens_cache_read, 10_000);
    assert.equal(done?.tokens_cache_write, 600);
    const folded = eventsNamed(run, 'turn.done', 'supervisor')[0];
    assert.equal(folded?.tokens, 54, 'the folded count is input plus output, without the cache');
    assert.equal(folded?.tokens_cache_read, 10_000);
  });

  it('premise: the limit is checked after the first round, so 5,327 counted tokens would have stopped the job', async () => {
    const plain = { prompt_tokens: 20, completion_tokens: 7 };
    const small = await startScriptedModel({
      turns: [{ tool_calls: [{ name: 'memory.list', arguments: {} }], usage: plain }],
    });
    try {
      const env = { AGENTD_STATE_DIR: tempStateDir(), AGENTD_INTELLIGENCE_DIALECT: 'anthropic' };
      // 27 uncached tokens in round one, over a limit of 25: the job stops before a second model call.
      const run = await runAgentd(['--intelligence', small.url, '--model', 'claude-x', '--prompt', 'list memory'], {
        env: { ...env, AGENTD_LIMITS_RUN_TOKENS: '25' },
      });
      assert.equal(run.code, 7, run.stderr);
      assert.equal(small.requests.length, 1);
      assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'exhausted_tokens');
    } finally {
      await small.close();
    }
  });
});

describe('openai cached tokens', () => {
  it('are reported apart: prompt_tokens less cached_tokens is the input (issue 14 item 5)', async () => {
    const model = await startScriptedModel({
      turns: [
        { tool_calls: [{ name: 'memory.list', arguments: {} }], usage: cached },
        { content: 'done', usage: cached },
      ],
    });
    try {
      // Premise: the double sends prompt_tokens 5,020 with cached_tokens 5,000; counted as input, the first round
      // would spend 5,027 tokens, over this limit, and the job would exit 7 before the second model call.
      const env = { AGENTD_STATE_DIR: tempStateDir(), AGENTD_LIMITS_RUN_TOKENS: '1000' };
      const run = await runAgentd(['--intelligence', model.url, '--prompt', 'list memory'], { env });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(model.requests.length, 2);
      const done = eventsNamed(run, 'turn.done', 'worker')[0];
      assert.equal(done?.tokens_in, 40);
      assert.equal(done?.tokens_cache_read, 10_000);
      assert.equal(done?.tokens_cache_write, undefined, 'OpenAI reports no cache writes');
      assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.tokens, 54);
    } finally {
      await model.close();
    }
  });
});

describe('cache tokens in a daemon: metrics and a budget', () => {
  // 50,000 cached tokens per call against a 20,000-token lifetime budget: were the cache charged (the old rule), the
  // first round alone would exhaust it and the second model call of the first message would be refused.
  const heavy = { prompt_tokens: 20, completion_tokens: 7, cache_read_tokens: 50_000, cache_write_tokens: 300 };
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [
        { tool_calls: [{ name: 'memory.list', arguments: {} }], usage: heavy },
        { content: 'listed', usage: heavy },
      ],
      match: [
        { when_contains: 'spend a lot', content: 'expensive', usage: { prompt_tokens: 25_000, completion_tokens: 5 } },
      ],
    });
  });
  after(async () => model.close());

  it('/metrics counts cache reads and writes apart; the budget ledger is charged input and output only', async () => {
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      'agent:',
      '  preflight: never',
      'observability:',
      '  metrics_addr: 127.0.0.1:0',
      'intelligence:',
      '  dialect: anthropic',
      '  model: claude-x',
      `  endpoints: ${model.url}`,
      '  budget: {lifetime_tokens: 20000}',
      '',
    ].join('\n');
    const daemon = await startDaemon(tempStateDir(), yaml);
    try {
      const client = await clientFor(daemon.url);
      const ask = async (text: string) => asTask(await within(client.sendMessage(send(text)), 30_000, text));
      assert.equal((await ask('list memory')).status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(model.requests.length, 2, 'both calls of the first message ran');
      const metrics = `http://${daemon.events.find((e) => e.event === 'metrics.listen')?.addr}/metrics`;
      const text = await (await fetch(metrics)).text();
      assert.match(text, /^agentd_tokens_total\{direction="cache_read",kind="turn"\} 100000$/m);
      assert.match(text, /^agentd_tokens_total\{direction="cache_write",kind="turn"\} 600$/m);
      assert.match(text, /^agentd_tokens_total\{direction="in",kind="turn"\} 40$/m);
      // Premise: the budget is in force at this size. 25,005 uncached tokens exhaust it, and the next message is
      // refused without a model call.
      await ask('spend a lot');
      await ask('one more');
      await waitUntil(() => daemon.events.some((e) => e.event === 'budget.refused'), 10_000, 'budget.refused');
      assert.equal(model.requests.length, 3);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });
});
