// A reload that changes an MCP server stops the reused workers keeping a connection to its old spec (issue 14): a
// reused worker keeps its stdio MCP servers between turns, so without this the next turn would call the server as
// it was configured before the reload. A reload that leaves the servers alone keeps the worker.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { childrenOf, processGone, waitUntil, within } from '../wait.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('a reload and the reused workers', { timeout: 90_000 }, () => {
  it('stops a worker keeping a changed MCP server; the next turn connects afresh', async () => {
    const model = await startScriptedModel({
      turns: [{ tool_calls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { content: 'echoed' }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-reload-workers-'));
    const file = join(dir, 'agent.yaml');
    const yaml = (instruction: string, env: string) =>
      `agent:\n  preflight: never\n  instruction: ${instruction}\nmcp:\n  servers:\n` +
      `    everything: {command: "${process.execPath}", args: ["${everything}", "stdio"], env: {MARK: "${env}"}}\n`;
    writeFileSync(file, yaml('Be brief.', 'one'));
    const sources = { files: [file], env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url }, cwd: dir };
    const events: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
    const reloadConfig = () => compileConfig(sources);
    const runtime = await startRuntime(reloadConfig(), { log, warmWorkers: 0, reloadConfig, listen: null });
    const sup = runtime.supervisor;
    const turn = async (ctx: string): Promise<number> => {
      const spawned = events.filter((e) => e.event === 'turn.spawn').length;
      const { record } = await sup.accept({ kind: 'timer', context_id: ctx, text: 'call echo', principal: null });
      assert.equal((await within(sup.outcomeOf(record.id), 30_000, ctx)).status, 'completed');
      return Number(events.filter((e) => e.event === 'turn.spawn')[spawned]?.worker_pid);
    };
    const backInPool = (pid: number) =>
      waitUntil(() => sup.warmWorkerPids.includes(pid), 10_000, `worker ${pid} is back in the pool`);
    try {
      const first = await turn('r1');
      await backInPool(first);
      const [server] = childrenOf(first, 'server-everything');
      assert.ok(server, 'the worker keeps its stdio server after the turn');
      // Premise: a reload that leaves the servers alone keeps the worker and its server for the next turn.
      writeFileSync(file, yaml('Be very brief.', 'one'));
      assert.deepEqual(runtime.reload('api'), { result: 'applied', generation: 2, changed: ['agent.instruction'] });
      assert.equal(await turn('r2'), first, 'the same worker runs the next turn');
      assert.deepEqual(childrenOf(first, 'server-everything'), [server], 'on the same server');
      await backInPool(first);
      writeFileSync(file, yaml('Be very brief.', 'two'));
      const applied = runtime.reload('api');
      assert.equal(applied.result, 'applied');
      await waitUntil(() => processGone(first) && processGone(server), 15_000, 'the worker and its old server stop');
      const recycled = events.find((e) => e.event === 'worker.recycle' && e.worker_pid === first);
      assert.equal(recycled?.reason, 'its MCP servers changed');
      const third = await turn('r3');
      assert.notEqual(third, first, 'a fresh worker runs the turn after the reload');
      const [fresh] = childrenOf(third, 'server-everything');
      assert.ok(fresh, 'which started the server as now configured');
      assert.match(readFileSync(`/proc/${fresh}/environ`, 'utf8'), /(^|\0)MARK=two(\0|$)/);
    } finally {
      await runtime.stop();
      await model.close();
    }
  });
});
