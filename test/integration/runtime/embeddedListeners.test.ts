// createAgent over the one runtime root: an embedded agent serves A2A (through the official client) and /metrics,
// and close() takes both listeners down.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { createAgent } from '../../../src/agent.js';
import { createLogger } from '../../../src/obs/log.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { artifactText, asTask, send } from '../../e2e/daemon.js';
import { clientFor } from '../a2a/listenerHarness.js';
import { within } from '../wait.js';

describe('createAgent with listeners', () => {
  it('serves A2A at `listen` and /metrics at `metrics`; close() stops both', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'hello from the embedded agent' }] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-embed-'));
    const agent = await createAgent({
      config: { env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url, model: 'test-model' }, cwd: dir },
      log: createLogger({ level: 'error', write: () => {} }),
      listen: 'http://127.0.0.1:0',
      metrics: '127.0.0.1:0',
    });
    let closed = false;
    try {
      assert.ok(agent.a2aUrl && agent.metricsAddress, 'both listeners are bound');
      const client = await clientFor(agent.a2aUrl);
      const task = asTask(await within(client.sendMessage(send('hi there')), 20_000, 'blocking send'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(task), 'hello from the embedded agent');
      const metrics = await (await fetch(`http://${agent.metricsAddress}/metrics`)).text();
      assert.match(metrics, /agentd_turns_total\{status="completed"\} 1/);
      assert.equal((await fetch(`http://${agent.metricsAddress}/readyz`)).status, 200);
      await agent.close();
      closed = true;
      await assert.rejects(fetch(`${agent.a2aUrl}/.well-known/agent-card.json`), 'the A2A listener is closed');
      await assert.rejects(fetch(`http://${agent.metricsAddress}/metrics`), 'the metrics listener is closed');
    } finally {
      if (!closed) await agent.close();
      await model.close();
    }
  });

  it('refuses a non-loopback listen address without a bearer principal, before anything starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-embed-'));
    await assert.rejects(
      createAgent({
        config: { env: { AGENTD_STATE_DIR: dir }, flags: { model: 'm', intelligence: 'http://127.0.0.1:9' }, cwd: dir },
        log: createLogger({ level: 'error', write: () => {} }),
        listen: 'http://0.0.0.0:0',
      }),
      /a non-loopback listener needs authentication/,
    );
  });
});
