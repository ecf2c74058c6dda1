// Gates 7 and 10 of subagent.run (producers reference §1.4) over a real supervisor, worker processes and the
// scripted model: shedding refuses every spawn with the reference's text, a warning refuses only `priority: low`.
// Premise: the same calls with the pressure cleared spawn (the last case), so the refusals come from the gate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB, toolResults } from './subagentParts.js';

const run = (priority: string) => ({
  name: 'subagent.run',
  arguments: { instruction: 'count', mode: 'async', priority },
});

describe('subagent.run under pressure', { timeout: 60_000 }, () => {
  it('shed: refused with the cause named, while the running turn goes on', async () => {
    const playbook: Playbook = {
      turns: [{ delay_ms: 1_000, tool_calls: [run('normal')] }, { content: 'ok' }],
      match: [{ when_contains: SUB, content: 'counted' }],
    };
    const rig = await startRig(playbook);
    try {
      const done = answer(rig, 'root', 'go');
      await waitUntil(() => rig.model.requests.length === 1, 10_000, 'the turn asks the model');
      rig.sup.setPressure('shed', 'memory');
      assert.equal((await done).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      assert.equal(ran?.content, 'subagent.run refused: memory pressure (shedding new work; in-flight work drains)');
      assert.equal(ran?.is_error, true);
    } finally {
      await rig.close();
    }
  });

  it('warn: priority low is refused, normal spawns; cleared: low spawns too', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [run('low')] },
        { tool_calls: [run('normal')] },
        { content: 'ok' },
        { tool_calls: [run('low')] },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'counted' }],
    };
    const rig = await startRig(playbook);
    try {
      rig.sup.setPressure('warn', 'disk');
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [low, normal] = toolResults(rig, 'root');
      assert.equal(low?.content, 'subagent.run refused: disk pressure (low-priority work sheds at warn)');
      assert.deepEqual(normal?.content, { handle: 'sub-1', status: 'running' });
      rig.sup.setPressure('ok');
      assert.equal((await answer(rig, 'again', 'go')).status, 'completed');
      assert.deepEqual(toolResults(rig, 'again')[0]?.content, { handle: 'sub-2', status: 'running' });
    } finally {
      await rig.close();
    }
  });
});
