// A workflow step's subagent respawned after a restart can spend before its run is live again (the subagent restore
// runs before the workflow desk opens): that spend still reaches the run's tokens (reference §1.11, §1.12). The
// second life's store holds the desk's open back until the child has answered, so the spend surely comes first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../../src/store/store.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

const YAML = `workflows:
  - name: w
    steps:
      s: {kind: once}
      sub: {kind: subagent, depends_on: s, instruction: "count the run"}
      f: {kind: finish, depends_on: sub, output: "{{steps.sub.output.result}}"}
`;
const USAGE = { prompt_tokens: 500, completion_tokens: 50 };

/**
 * The store with the first read of live runs (the workflow desk's open) held until a subagent record is saved
 * `completed`: the respawned child has spent and ended before its run can be live again.
 */
function holdingOpen(store: Store): Store {
  let release: () => void = () => {};
  const childEnded = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  return {
    ...store,
    close: () => store.close(),
    subagents: {
      ...store.subagents,
      save: (record) => {
        if (record.status === 'completed') release();
        return store.subagents.save(record);
      },
    },
    workflows: {
      ...store.workflows,
      listRuns: async (filter) => {
        if (filter.live && !held) {
          held = true;
          await childEnded;
        }
        return store.workflows.listRuns(filter);
      },
    },
  };
}

describe("a step's subagent spending before its run is restored", () => {
  it("charges that spend to the run once it is live, and the run's tokens include it", async () => {
    const waiting: Playbook = {
      turns: [],
      match: [{ when_contains: 'count the run', delay_ms: 60_000, content: 'x' }],
    };
    const first = await startRig(waiting, {}, { yaml: YAML });
    const dir = first.dir;
    try {
      await waitUntil(() => first.named('subagent.spawn').length > 0, 10_000, 'the step spawned its child');
    } finally {
      await first.close();
    }
    const answering: Playbook = {
      turns: [],
      match: [{ when_contains: 'count the run', usage: USAGE, content: 'counted' }],
    };
    const second = await startRig(answering, {}, { yaml: YAML, dir, wrapStore: holdingOpen });
    try {
      await waitUntil(() => second.named('run.done').length > 0, 15_000, 'the run ended');
      const at = (name: string) => second.events.findIndex((e) => e.event === name);
      assert.equal(second.named('subagent.result')[0]?.status, 'completed');
      assert.ok(at('subagent.result') < at('restore.runs'), 'premise: the child spent before its run was live again');
      const [run] = await second.store.workflows.listRuns({});
      assert.equal(run?.status, 'completed', JSON.stringify(second.named('run.done')));
      // Premise: charged while the run was not live, the spend was dropped and the run's tokens stayed 0.
      assert.equal(run?.tokens, USAGE.prompt_tokens + USAGE.completion_tokens);
    } finally {
      await second.close();
    }
  });
});
