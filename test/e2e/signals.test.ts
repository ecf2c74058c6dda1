// SIGTERM during a job: the drain lets the running turn finish and the job keeps its own exit code; a turn the
// drain must abandon exits 1 and replays on the next start.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

describe('a signalled job', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'answered on replay' }],
      match: [
        {
          when_contains: 'refuse slowly',
          tool_calls: [{ name: 'finish', arguments: { status: 'refused', output: 'no' } }],
          delay_ms: 1_000,
        },
        { when_contains: 'hang forever', content: 'never', delay_ms: 600_000, times: 1 },
      ],
    });
  });
  after(async () => model.close());

  // A job has nothing to reload. Before only a daemon trapped SIGHUP for reloads, a job's hangup was a reload
  // (config.reload.unchanged here; restart_required without a named store) and the turn ran on; now it drains.
  it('SIGHUP mid-turn stops a job like SIGTERM: drained, its own code, no reload', async () => {
    let signalled = false;
    const run = await runAgentd(['--intelligence', model.url, '--prompt', 'refuse slowly'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
      onEvent: (ev, child) => {
        if (ev.event === 'turn.spawn' && !signalled) {
          signalled = true;
          child.kill('SIGHUP');
        }
      },
    });
    assert.ok(signalled, 'premise: the signal was sent while the turn ran');
    assert.equal(run.events.filter((e) => String(e.event).startsWith('config.reload')).length, 0);
    assert.equal(eventsNamed(run, 'drain.start').length, 1);
    assert.equal(run.code, 5, run.stderr);
    assert.equal(run.stdout, 'no\n');
  });

  it('SIGTERM mid-turn drains: the turn finishes and the job exits with its own code', async () => {
    let signalled = false;
    const run = await runAgentd(['--intelligence', model.url, '--prompt', 'refuse slowly'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
      onEvent: (ev, child) => {
        if (ev.event === 'turn.spawn' && !signalled) {
          signalled = true;
          child.kill('SIGTERM');
        }
      },
    });
    assert.ok(signalled, 'premise: the signal was sent while the turn ran');
    assert.equal(eventsNamed(run, 'drain.start').length, 1);
    assert.equal(run.code, 5, run.stderr);
    assert.equal(run.stdout, 'no\n');
  });

  it('a turn the drain abandons exits 1, and the next start replays and answers it', async () => {
    const dir = tempStateDir();
    const args = ['--intelligence', model.url, '--prompt', 'hang forever'];
    const env = { AGENTD_STATE_DIR: dir, AGENTD_LIFECYCLE_DRAIN_TIMEOUT: '300ms' };
    const first = await runAgentd(args, {
      env,
      onEvent: (ev, child) => {
        if (ev.event === 'turn.spawn') setTimeout(() => child.kill('SIGTERM'), 200);
      },
    });
    assert.equal(first.code, 1, first.stderr);
    assert.equal(eventsNamed(first, 'drain.done')[0]?.abandoned, 1);
    const second = await runAgentd(args, { env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(eventsNamed(second, 'prompt.skipped')[0]?.reason, 'pending');
    assert.equal(second.stdout, 'answered on replay\n');
  });
});
