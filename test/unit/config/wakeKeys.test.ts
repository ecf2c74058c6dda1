import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('agent.wake_on and agent.on_workflow_finished', () => {
  it("default to the seed's: a2a_message, human_reply, subagent_result (reference §1.13), workflow_failed; ignore", () => {
    const config = compileIn(tempDir(), {});
    assert.deepEqual(config.agent.wake_on, ['a2a_message', 'human_reply', 'subagent_result', 'workflow_failed']);
    assert.equal(config.agent.on_workflow_finished, 'ignore');
  });

  it('read a list (duplicates dropped) from a file and a comma list from the environment', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'agent:\n  wake_on: [human_reply, budget_resumed, human_reply]\n  on_workflow_finished: think\n',
    );
    const config = compileIn(dir, { files: [file] });
    assert.deepEqual(config.agent.wake_on, ['human_reply', 'budget_resumed']);
    assert.equal(config.agent.on_workflow_finished, 'think');
    const fromEnv = compileIn(tempDir(), { env: { AGENTD_AGENT_WAKE_ON: 'a2a_message, subagent_result' } });
    assert.deepEqual(fromEnv.agent.wake_on, ['a2a_message', 'subagent_result']);
  });

  it('name the bad entry and its line', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent:\n  wake_on: [human_reply, timers]\n  on_workflow_finished: loud\n');
    const problem = compileError(dir, { files: [file] });
    assert.match(problem, /a\.yaml:2: agent\.wake_on\[1\]: expected one of a2a_message, .*got "timers"/);
    assert.match(problem, /a\.yaml:3: agent\.on_workflow_finished: expected one of ignore, note, think, got "loud"/);
  });
});
