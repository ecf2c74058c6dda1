// Anthropic prompt-cache tokens through the binary: they are reported apart and never counted as input, so a
// per-turn token limit does not run out under prompt caching (issue 13 item 11, reference §5.3).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
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
});
