// The stable prefix marked for provider prompt caches, through real workers (issue 14 item 5): Anthropic requests
// carry cache_control breakpoints after the tools and after the system prompt; OpenAI requests carry one
// prompt_cache_key per conversation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecordedRequest } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';

type Body = Record<string, unknown>;
const bodyOf = (r: RecordedRequest | undefined): Body => (r?.body ?? {}) as Body;
const toolRound = {
  turns: [{ tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }] }, { content: 'done' }],
};

describe('prompt caching on the wire', () => {
  it('anthropic: a breakpoint on the last tool and on the system prompt, in every call of the turn', async () => {
    const rig = await startRig(toolRound, { AGENTD_INTELLIGENCE_DIALECT: 'anthropic' });
    try {
      assert.equal((await answer(rig, 'c1', 'remember k')).status, 'completed');
      assert.equal(rig.model.requests.length, 2, 'a tool round: two model calls');
      for (const req of rig.model.requests) {
        const body = bodyOf(req);
        const tools = body.tools as Array<Record<string, unknown>>;
        const marked = tools.filter((t) => t.cache_control !== undefined);
        assert.deepEqual(marked, [tools.at(-1)], 'only the last tool is marked');
        assert.deepEqual(tools.at(-1)?.cache_control, { type: 'ephemeral' });
        const system = body.system as Array<Record<string, unknown>>;
        assert.match(String(system[0]?.text), /^You are agentd, an autonomous, durable agent/);
        assert.deepEqual(system[0]?.cache_control, { type: 'ephemeral' });
        assert.ok(
          system.slice(1).every((b) => b.cache_control === undefined),
          'what follows the prompt varies',
        );
        assert.equal('prompt_cache_key' in body, false, 'an OpenAI field only');
      }
      // The prefix up to the second breakpoint is byte-identical across the turn's calls: the cache can hit.
      const [first, second] = rig.model.requests.map((r) => JSON.stringify([bodyOf(r).tools, bodyOf(r).system]));
      assert.equal(first, second);
    } finally {
      await rig.close();
    }
  });

  it('openai: one prompt_cache_key per conversation, kept across its turns, none naming it', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] });
    try {
      await answer(rig, 'c1', 'first');
      await answer(rig, 'c1', 'second');
      await answer(rig, 'c2', 'third');
      const keys = rig.model.requests.map((r) => bodyOf(r).prompt_cache_key);
      assert.equal(keys.length, 3);
      assert.match(String(keys[0]), /^agentd-[0-9a-f]{16}$/);
      assert.equal(keys[1], keys[0], 'the same conversation: the same key');
      assert.notEqual(keys[2], keys[0], 'another conversation: another key');
      assert.ok(rig.model.requests.every((r) => !JSON.stringify(bodyOf(r).prompt_cache_key).includes('c1')));
    } finally {
      await rig.close();
    }
  });
});
