// A worker's stderr reaches the supervisor's logger: an embedder's `log` gets the worker's own events (comp
// `worker`, the worker's pid), and the job's stderr still carries them as the same JSON lines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import { createLogger } from '../../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from '../../e2e/harness.js';
import { within } from '../wait.js';

describe('worker stderr', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'hello back' }] });
  });
  after(async () => model.close());

  it("an embedder's log sink gets the worker's events", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (line) => lines.push(line) });
    const agent = await createAgent({ intelligence: model.url, store: 'memory', config: { env: {} }, log });
    try {
      const run = await agent.run('hello', { conversation: 'logs' });
      assert.equal((await within(run.result, 30_000, 'the run')).status, 'completed');
    } finally {
      await agent.close();
    }
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // The premise: with the worker's stderr inherited, its lines went to this process's fd 2, never to `write`.
    const start = events.find((e) => e.event === 'loop.start' && e.comp === 'worker');
    assert.ok(start, 'the worker-side loop.start reached the sink');
    assert.equal(typeof start.pid, 'number');
    assert.notEqual(start.pid, process.pid, "the worker's pid, not the supervisor's");
    assert.equal(start.level, 'info');
    assert.ok(
      events.some((e) => e.event === 'turn.done' && e.comp === 'worker'),
      "the worker's turn.done too (read before close returned)",
    );
  });

  it("a job's stderr still carries the worker's JSON lines", async () => {
    const run = await runAgentd(['--intelligence', model.url, '--model', 'test-model', '--prompt', 'hello'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'hello back');
    const start = eventsNamed(run, 'loop.start', 'worker')[0];
    assert.ok(start, run.stderr);
    assert.equal(Object.keys(start).slice(0, 5).join(','), 'ts,level,event,pid,comp', 'the same line shape');
    assert.equal(eventsNamed(run, 'worker.stderr').length, 0, 'every worker line was one of its events');
    // Every stderr line is still one JSON object.
    for (const line of run.stderr.split('\n').filter((l) => l !== ''))
      assert.doesNotThrow(() => JSON.parse(line), line);
  });
});
