// Kernel caps on workers that were not warm spares, and capped workers never reused (reference §1.4 "Payload"):
// two capped async subagents in one response, so at least one gets a freshly started worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { processGone, waitUntil } from '../wait.js';
import { SUB } from './subagentParts.js';

const capped = (instruction: string) => ({
  name: 'subagent.run',
  arguments: { instruction, mode: 'async', limits: { memory: '512MB', cpu: '5m' } },
});

describe('subagent caps on fresh workers', () => {
  it('both run to completion under RLIMIT_AS; neither worker goes back to the pool', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [capped('one'), capped('two')] }, { content: 'x' }, { content: 'ok' }],
      // The answer waits a while so the caps (applied at `ready`) are in force while the worker runs.
      match: [{ when_contains: SUB, delay_ms: 1_000, content: 'capped done' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  warm_workers: 0\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      await waitUntil(() => rig.named('subagent.result').length === 2, 20_000, 'both subagents end');
      const records = await rig.store.subagents.list();
      // Premise: with the cap set right after the spawn, a fresh node died in V8's start ("Fatal process OOM in
      // CodeRange", SIGTRAP) and its record read `failed`, "subagent exited without a result".
      assert.deepEqual(
        records.map((r) => [r.handle, r.status, r.result]),
        [
          ['sub-1', 'completed', 'capped done'],
          ['sub-2', 'completed', 'capped done'],
        ],
      );
      const caps = rig.named('subagent.caps');
      assert.deepEqual(
        caps.map((c) => [c.memory, c.cpu]),
        [
          ['applied', 'applied'],
          ['applied', 'applied'],
        ],
      );
      // Premise: spawned with `reuse`, a capped worker went idle after its run (child.exit {idle: true}) and the
      // pool took it back, caps and all, for the next turn.
      const exits = () => rig.named('child.exit').filter((e) => e.kind === 'subagent');
      // A worker's exit follows its result: wait for both.
      await waitUntil(() => exits().length === 2, 10_000, 'both subagent children end');
      assert.ok(
        exits().every((e) => e.idle === undefined),
        JSON.stringify(exits()),
      );
      for (const c of caps) await waitUntil(() => processGone(c.pid as number), 10_000, 'the capped worker exits');
    } finally {
      await rig.close();
    }
  });
});
