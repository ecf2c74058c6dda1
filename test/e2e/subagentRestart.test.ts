// Subagents across a SIGKILL of the binary (P-7 adapted, reference §1.12 and §5 items 2, 11): the async subagent
// is respawned once (attempt 2) and completes once, the detached one is failed with a reason instead of staying
// running forever, the parked sync caller's replayed turn gets its answer, and no handle is minted twice.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type Playbook, type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const SUB = 'You are a subagent of';

/**
 * The root's calls by round: async + detached, then a sync call it parks on, the list, and an await of the async
 * one. A job ends when its prompt's turn does and its drain kills what still runs: without the await, a loaded
 * machine could end the second life before the respawned sub-1 answered, and "sub-1 completes once" failed.
 */
function playbook(subagentDelayMs: number, alphaDelayMs = subagentDelayMs): Playbook {
  return {
    turns: [
      {
        tool_calls: [
          { name: 'subagent.run', arguments: { instruction: 'alpha', mode: 'async' } },
          { name: 'subagent.run', arguments: { instruction: 'delta', mode: 'detached' } },
        ],
      },
      { content: 'x' },
      { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'sigma', mode: 'sync' } }] },
      { tool_calls: [{ name: 'subagent.list', arguments: {} }] },
      { tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1' } }] },
      { content: 'done' },
    ],
    match: [
      // sub-1's own request (its instruction unescaped; its caller's requests hold it inside tool arguments).
      { when_contains: '"content":"alpha"', delay_ms: alphaDelayMs, content: 'finished' },
      { when_contains: SUB, delay_ms: subagentDelayMs, content: 'finished' },
    ],
  };
}

describe('subagents across a crash', () => {
  const models: ScriptedModel[] = [];
  after(async () => {
    for (const m of models) await m.close();
  });

  it('respawns the async and sync ones once, fails the detached one, answers the parked caller', async () => {
    const dir = tempStateDir();
    const env = { AGENTD_STATE_DIR: dir };
    const slow = await startScriptedModel(playbook(60_000));
    models.push(slow);
    const life1 = await runAgentd(['--intelligence', slow.url, '--prompt', 'delegate'], {
      env,
      onEvent: (ev, child) => {
        if (ev.event === 'subagent.spawn' && ev.handle === 'sub-3') child.kill('SIGKILL');
      },
    });
    assert.equal(life1.signal, 'SIGKILL');
    assert.deepEqual(
      eventsNamed(life1, 'subagent.spawn').map((e) => [e.handle, e.mode]),
      [
        ['sub-1', 'async'],
        ['sub-2', 'detached'],
        ['sub-3', 'sync'],
      ],
      'premise: all three were running, the sync caller parked on sub-3',
    );

    // sub-1 answers last, after the root's other rounds could have ended the job (the premise of the await).
    const fast = await startScriptedModel(playbook(0, 2_000));
    models.push(fast);
    const life2 = await runAgentd(['--intelligence', fast.url, '--prompt', 'delegate'], { env });
    assert.equal(life2.code, 0, life2.stderr.slice(-3000));
    assert.equal(life2.stdout, 'done\n');
    assert.deepEqual(
      eventsNamed(life2, 'subagent.respawn').map((e) => [e.handle, e.attempt]),
      [
        ['sub-1', 2],
        ['sub-3', 2],
      ],
    );
    assert.equal(eventsNamed(life2, 'subagent.spawn').length, 0, 'the replayed calls found their subagents');
    const results = eventsNamed(life2, 'subagent.result').map((e) => [e.handle, e.status]);
    assert.deepEqual(
      results.filter(([h]) => h === 'sub-1'),
      [['sub-1', 'completed']],
      'sub-1 completes once',
    );
    assert.deepEqual(
      results.filter(([h]) => h === 'sub-2'),
      [['sub-2', 'failed']],
    );

    const store = new SqliteStore(dir);
    try {
      const records = await store.subagents.list();
      assert.deepEqual(
        records.map((r) => [r.handle, r.status, r.attempt]),
        [
          ['sub-1', 'completed', 2],
          ['sub-2', 'failed', 1],
          ['sub-3', 'completed', 2],
        ],
      );
      assert.match(String(records[1]?.error), /not respawned/);
      const root = (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'root');
      const tools = root?.messages.flatMap((m) => (m.role === 'tool' ? [m] : [])) ?? [];
      const sync = tools.find(
        (m) => m.name === 'subagent.run' && (m.content as { handle?: string }).handle === 'sub-3',
      );
      assert.deepEqual(sync?.content, { handle: 'sub-3', status: 'completed', result: 'finished', error: null });
      const list = tools.find((m) => m.name === 'subagent.list')?.content as { subagents: Array<{ handle: string }> };
      assert.deepEqual(
        list.subagents.map((s) => s.handle),
        ['sub-1', 'sub-2', 'sub-3'],
        'no duplicate handles',
      );
      const awaited = tools.find((m) => m.name === 'subagent.await')?.content;
      assert.deepEqual(awaited, { handle: 'sub-1', status: 'completed', result: 'finished', error: null });
    } finally {
      await store.close();
    }
  });
});
