// Preflight through the binary: a job whose message preflight answers as `status` prints the reply and exits 0
// without a turn, and a job whose preflight fails still runs its turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

describe('preflight in a job', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'the turn answered' }],
      match: [
        { when_contains: 'schedule report', content: { intent: 'status', needs_plan: false, risk: 'low' } },
        { when_contains: 'PREFLIGHT.', http_status: 400 },
      ],
    });
  });
  after(async () => model.close());

  const job = (prompt: string) =>
    runAgentd(['--intelligence', model.url, '--model', 'test-model', '--prompt', prompt], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
    });

  it('answers a status message without a turn', async () => {
    const run = await job('schedule report: what are you doing?');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Status: /);
    assert.equal(eventsNamed(run, 'preflight.verdict')[0]?.intent, 'status');
    assert.equal(eventsNamed(run, 'turn.spawn').length, 0);
  });

  it('runs the turn when preflight fails', async () => {
    const run = await job('please fix the build');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'the turn answered\n');
    assert.equal(eventsNamed(run, 'preflight.failed').length, 1);
  });
});
