// Cancel really cancels (issue 18 item 5, interfaces §6): a task shows CANCELED only once the worker that ran its
// turn and the MCP server process that worker started are gone, wherever it is first seen (the cancel's own answer,
// the feed, GetTask), cancelled over A2A or with `agentd cancel`; and it never flips back. The MCP server here is
// slow to stop (test/doubles/lingeringMcpServer.ts): before, the turn's fold showed CANCELED at the worker's
// turn_done, while the worker still stopped that server (about 1.3 s), so every moment below saw both alive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, stateName } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';
import { type Moment, moment, spawnCount, type TurnProcesses, turnInCall, watchCanceled } from './cancelProbe.js';
import { MCP_SERVERS } from './clientScript.js';

const TOKEN = 'op-token-0123456789abcdef0123456789';

describe('cancel really cancels', { timeout: 180_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let client: DaemonClient;
  before(async () => {
    const hold = (phrase: string) => ({
      when_contains: phrase,
      times: 1,
      tool_calls: [{ name: 'hold_on', arguments: { seconds: 120 } }],
    });
    model = await startScriptedModel({
      turns: [{ content: 'all done' }],
      match: [hold('hold on over A2A'), hold('hold on for the CLI')],
    });
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  principals:',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
      'intelligence:',
      `  endpoints: ${model.url}`,
      ...MCP_SERVERS,
      '',
    ].join('\n');
    daemon = await startDaemon(tempStateDir(), yaml, { OPERATOR_TOKEN: TOKEN });
    client = new DaemonClient({ url: daemon.url, token: TOKEN });
  });
  after(async () => {
    await daemon?.stop();
    await model?.close();
  });

  /** Sends `text`, waits until its turn is inside `hold_on`, cancels it with `cancel`; every moment CANCELED shows. */
  async function cancelDuringCall(text: string, cancel: (id: string, procs: TurnProcesses) => Promise<Moment>) {
    const before = spawnCount(daemon);
    const task = await client.send(text, { wait: false });
    const procs = await turnInCall(daemon, before, 'hold_on', 'lingeringMcpServer');
    assert.ok(procs.mcp > 0, 'premise: the worker started its own MCP server process');
    const start = moment('mid-call', procs);
    assert.ok(start.workerAlive && start.mcpAlive, 'premise: both run mid-call');
    const watch = await watchCanceled(client, task.id, procs);
    const answered = await cancel(task.id, procs);
    const seen = await watch.done();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(stateName(await client.getTask(task.id)), 'canceled', 'it never flips back');
    return [answered, ...seen];
  }

  const allGone = (moments: Moment[]) => {
    for (const m of moments) {
      assert.equal(m.workerAlive, false, `the worker was gone when CANCELED showed (${m.where})`);
      assert.equal(m.mcpAlive, false, `the MCP server was gone when CANCELED showed (${m.where})`);
    }
  };

  it('CancelTask over A2A', async () => {
    const moments = await cancelDuringCall('hold on over A2A', async (id, procs) => {
      const task = await client.cancel(id);
      const at = moment('CancelTask answer', procs);
      assert.equal(stateName(task), 'canceled');
      return at;
    });
    assert.deepEqual(moments.map((m) => m.where).sort(), ['CancelTask answer', 'GetTask', 'feed']);
    allGone(moments);
  });

  it('agentd cancel (the CLI)', async () => {
    const moments = await cancelDuringCall('hold on for the CLI', async (id, procs) => {
      const run = await runAgentd(['cancel', id], { env: { AGENTD_URL: daemon.url, AGENTD_TOKEN: TOKEN } });
      const at = moment('agentd cancel exit', procs);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${id} canceled\n`);
      return at;
    });
    allGone(moments);
  });
});
