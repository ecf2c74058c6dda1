// A tool policy's `ask` over a real daemon (interfaces reference §1.8): the approval question carries a yes/no
// schema, so clients offer yes and no and `agentd answer` refuses anything else; `yes` lets the call run.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { eventsNamed, runAgentd, tempStateDir } from '../harness.js';
import { asking, OPERATOR_TOKEN, operatorYaml } from '../humanGate.js';

describe('a policy ask', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  it('asks yes or no with a boolean schema; a stray answer is refused, yes runs the tool', async () => {
    model = await startScriptedModel({
      turns: [{ content: 'stored' }],
      match: [
        {
          when_contains: 'remember it',
          times: 1,
          tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 1 } }],
        },
      ],
    });
    const policy = '    - {name: ask-memory, match: {tool: memory.set}, action: ask, timeout: 5m}';
    const yaml = operatorYaml(model, ['security:', '  policies:', policy]);
    const daemon = await startDaemon(tempStateDir(), yaml, { OPERATOR_TOKEN });
    try {
      const env = { AGENTD_URL: daemon.url, AGENTD_TOKEN: OPERATOR_TOKEN };
      const sent = await runAgentd(['send', '--no-wait', 'remember it'], { env });
      assert.equal(sent.code, 0, sent.stderr);
      await waitUntil(() => asking(daemon.events).length > 0, 30_000, 'the approval is asked');
      const task = String(asking(daemon.events)[0]);
      const client = new DaemonClient({ url: daemon.url, token: OPERATOR_TOKEN });
      const asked = await client.getTask(task);
      // Before, the approval carried no schema: clients showed free text and took any answer.
      assert.deepEqual((asked.metadata?.['agentd/question'] as { schema?: unknown })?.schema, { type: 'boolean' });
      const stray = await runAgentd(['answer', task, 'maybe'], { env });
      assert.equal(stray.code, 1, stray.stderr);
      const yes = await runAgentd(['answer', task, 'yes', '--wait'], { env });
      assert.equal(yes.code, 0, yes.stderr);
      await waitUntil(
        () => eventsNamed(daemon, 'tool.policy').some((e) => e.action === 'approved'),
        30_000,
        'approved',
      );
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });
});
