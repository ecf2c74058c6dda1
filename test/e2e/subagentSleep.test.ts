// A subagent's `sleep` survives a SIGKILL of the binary (issue 17): its timer is a stored row keyed by the call, so
// the subagent respawned in the next life, making the same call, waits until the due time the first life stored
// (not a fresh interval from the restart), answers `slept_ms` from the first call, and leaves no row behind.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type Playbook, type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const SUB = 'You are a subagent of';

const PLAYBOOK: Playbook = {
  turns: [
    { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'nap', mode: 'sync' } }] },
    { content: 'done' },
  ],
  match: [
    // The subagent's second request carries its sleep's answer; its first asks to sleep.
    { when_contains: 'slept_ms', content: 'rested' },
    { when_contains: SUB, tool_calls: [{ name: 'sleep', arguments: { duration: '4s' } }] },
  ],
};

describe('a subagent sleep across a crash', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  it('waits in the next life until the due time the first life stored', async () => {
    const dir = tempStateDir();
    const env = { AGENTD_STATE_DIR: dir };
    const model = await startScriptedModel(PLAYBOOK);
    models.push(model);
    const life1 = await runAgentd(['--intelligence', model.url, '--prompt', 'delegate'], {
      env,
      onEvent: (ev, child) => {
        if (ev.event === 'subagent.sleep') child.kill('SIGKILL');
      },
    });
    assert.equal(life1.signal, 'SIGKILL');
    const [first] = eventsNamed(life1, 'subagent.sleep');
    assert.equal(first?.resumed, false);
    const store = new SqliteStore(dir);
    const rows = (await store.timers.list()).filter((t) => t.kind === 'subagent_sleep');
    await store.close();
    assert.equal(rows.length, 1, 'the sleep is a stored row (an in-memory timer would leave none)');
    assert.equal(rows[0]?.due, first?.due);

    const life2 = await runAgentd(['--intelligence', model.url, '--prompt', 'delegate'], { env });
    assert.equal(life2.code, 0, life2.stderr.slice(-3000));
    assert.equal(life2.stdout, 'done\n');
    const [again] = eventsNamed(life2, 'subagent.sleep');
    assert.equal(again?.resumed, true, 'the respawned call found its stored timer');
    assert.equal(again?.due, first?.due, 'and kept its due time');
    const after2 = new SqliteStore(dir);
    try {
      assert.equal((await after2.timers.list()).filter((t) => t.kind === 'subagent_sleep').length, 0, 'no row left');
      const [record] = await after2.subagents.list();
      assert.equal(record?.status, 'completed');
      assert.equal(record?.result, 'rested');
    } finally {
      await after2.close();
    }
    const answer = model.requests
      .map((r) => JSON.stringify(r.body))
      .filter((b) => b.includes('slept_ms'))
      .map((b) => Number(/slept_ms\\?":(\d+)/.exec(b)?.[1]));
    // A timer may fire a millisecond before Date.now() reaches its due time (seen: 3999); the second life alone
    // would count well under 4 s.
    assert.ok((answer[0] ?? 0) >= 3_990, `slept_ms counts from the first life's call (${answer[0]})`);
  });
});
