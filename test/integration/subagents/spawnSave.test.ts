// A subagent's record is stored before its worker starts: a refused save is the caller's spawn failure and no
// worker runs. Premise: launching first and saving after left a worker running whose record was never stored
// (a `subagent.spawn` logged for a handle the store does not know), while the caller was told the spawn failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

describe('a subagent whose record cannot be saved', () => {
  it('fails the spawn and starts no worker', async () => {
    const playbook: Playbook = {
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'never runs' } }] }, { content: 'ok' }],
      match: [{ when_contains: SUB, content: 'ran anyway' }],
    };
    const rig = await startRig(playbook);
    const port = rig.store.subagents;
    const save = port.save.bind(port);
    let refused = 0;
    port.save = (record) => (refused++ === 0 ? Promise.reject(new Error('disk full')) : save(record));
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      assert.equal(refused, 1, 'premise: the first save was refused');
      const [result] = toolResults(rig, 'root');
      assert.equal(result?.content, 'subagent.run: spawn failed: disk full');
      assert.equal(result?.is_error, true);
      assert.equal(rig.named('subagent.spawn').length, 0, 'no worker was started');
      assert.equal(rig.model.requests.filter((r) => JSON.stringify(r.body).includes(SUB)).length, 0);
      assert.deepEqual(await rig.store.subagents.list(), []);
    } finally {
      await rig.close();
    }
  });
});
