// subagent.await {timeout} is honoured (reference §5 item 1), and output_schema is enforced with the structured
// answer's tolerant parse and re-ask (agentd never validated it, reference §1.4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

describe('subagent answers', () => {
  it('await with a timeout answers timed_out while the subagent still runs', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'slow', mode: 'async' } }] },
        { tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1', timeout: '300ms' } }] },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, delay_ms: 20_000, content: 'late' }],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [, awaited] = toolResults(rig, 'root');
      assert.deepEqual(awaited?.content, { handle: 'sub-1', status: 'running', timed_out: true });
    } finally {
      await rig.close();
    }
  });

  it('holds the answer to output_schema: a reply that does not match is re-asked', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'count', output_schema: schema } }] },
        { content: 'ok' },
      ],
      match: [
        { when_contains: SUB, times: 1, content: 'about three, I think' },
        { when_contains: SUB, content: 'Here it is: {"n": 3}' },
      ],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      assert.deepEqual(ran?.content, { handle: 'sub-1', status: 'completed', result: { n: 3 }, error: null });
      const subRequests = rig.model.requests.filter((r) => JSON.stringify(r.body).includes(SUB));
      assert.equal(subRequests.length, 2, 'the first reply was re-asked');
    } finally {
      await rig.close();
    }
  });
});
