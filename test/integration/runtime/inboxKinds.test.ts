// Each producer stamps its own inbox kind, through the real supervisor, workers and SQLite store; the startup
// prompt through startRuntime; and an event stored before kinds existed still replays after a restart.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import { StartupPrompt } from '../../../src/runtime/startupPrompt.js';
import { type Playbook, startScriptedModel } from '../../doubles/scriptedModel.js';
import { type Rig, startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const OP = 'operator';

const playbook: Playbook = {
  turns: [{ content: 'ok' }],
  match: [
    {
      when_contains: 'delegate a good one',
      times: 1,
      tool_calls: [{ name: 'message.send', arguments: { to: 'helper', text: 'fine job' } }],
    },
    { when_contains: 'fork please', times: 1, tool_calls: [{ name: 'side.start', arguments: { instruction: 'dig' } }] },
  ],
};

/** The kinds the supervisor logged as accepted into conversation `ctx`. */
function kindsIn(rig: Rig, ctx: string): unknown[] {
  return rig.named('inbox.accepted').flatMap((e) => (e.ctx === ctx ? [e.kind] : []));
}

describe('inbox kinds', () => {
  it('message.send → agent_message, its wake turn → wake_note, side.start → side_task, a goal → goal_continuation', async () => {
    const rig = await startRig(playbook, { AGENTD_AGENT_ON_WORKFLOW_FINISHED: 'think' });
    try {
      const boss = (await rig.sup.accept({ context_id: 'boss', text: 'delegate a good one', principal: OP })).record;
      const forker = (await rig.sup.accept({ context_id: 'forker', text: 'fork please', principal: OP })).record;
      assert.ok(boss && forker);
      await within(rig.sup.outcomeOf(boss.id), 20_000, 'the sender turn');
      await waitUntil(() => kindsIn(rig, 'boss').length === 2, 30_000, 'the wake turn in the sender');
      await within(rig.sup.whenIdle(), 30_000, 'every turn');
      assert.deepEqual(kindsIn(rig, 'boss'), ['a2a_message', 'wake_note']);
      assert.deepEqual(kindsIn(rig, 'helper'), ['agent_message']);
      const side = rig.named('side.started')[0];
      assert.ok(side, 'premise: the side task started');
      assert.deepEqual(kindsIn(rig, String(side.side)), ['side_task']);
      // The kind and its payload survive the store (the replay reads them back).
      const delivered = rig.named('inbox.accepted').find((e) => e.ctx === 'helper');
      const stored = await rig.store.inbox.find(String(delivered?.inbox_event));
      assert.equal(stored?.kind, 'agent_message');
      assert.equal(stored?.kind === 'agent_message' && stored.payload.from, 'boss');

      rig.sup.steering.goalSet('g', OP, 'count to three', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => kindsIn(rig, 'g').length > 0, 20_000, 'the first continuation');
      assert.equal(kindsIn(rig, 'g')[0], 'goal_continuation');
      rig.sup.steering.goalClear('g', OP);
      await within(rig.sup.whenIdle(), 30_000, 'the continuation ends');
    } finally {
      await rig.close();
    }
  });

  it('the CLI prompt → startup_prompt, once per store; a v3 a2a_message event with `from` replays as agent_message', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'done' }] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-kinds-'));
    const events: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
    const config = compileConfig({
      files: [],
      env: { AGENTD_STATE_DIR: dir },
      flags: { intelligence: model.url, model: 'test-model', prompt: 'say done' },
      cwd: dir,
    });
    const start = () => startRuntime(config, { log, warmWorkers: 0 });
    const promptOf = (rt: Awaited<ReturnType<typeof start>>) => {
      const producer = rt.producers.find((p): p is StartupPrompt => p instanceof StartupPrompt);
      assert.ok(producer, 'the prompt is a registered producer');
      return producer.accepted();
    };
    try {
      const first = await start();
      const id = await promptOf(first);
      assert.equal((await within(first.supervisor.outcomeOf(id), 20_000, 'the prompt')).status, 'completed');
      assert.equal((await first.store.inbox.find(id))?.kind, 'startup_prompt');
      const file = first.store.location;
      await first.stop();

      // A pending event as a v3 store wrote it: kind a2a_message, the sender only in payload.from.
      const db = new Database(file);
      const insert = db.prepare(
        "INSERT INTO inbox (id, kind, ts, principal, payload, dedupe_key, status, outcome) VALUES (?, 'a2a_message', ?, 'operator', ?, NULL, 'pending', NULL)",
      );
      insert.run(
        '01JV3PENDINGFROM000000000A',
        Date.now(),
        JSON.stringify({ context_id: 'w', text: 'job', from: 'root', msg_depth: 1 }),
      );
      db.close();

      const second = await start();
      try {
        assert.equal(second.restored.pending, 1, 'premise: the v3 event is pending');
        assert.equal(await promptOf(second), id, 'the prompt is not accepted again');
        const replayed = await within(second.supervisor.outcomeOf('01JV3PENDINGFROM000000000A'), 20_000, 'the replay');
        assert.equal(replayed.status, 'completed');
        const stored = await second.store.inbox.find('01JV3PENDINGFROM000000000A');
        assert.equal(stored?.kind, 'agent_message');
        assert.equal(stored?.status, 'done');
        assert.equal(events.filter((e) => e.event === 'prompt.skipped').length, 1);
      } finally {
        await second.stop();
      }
    } finally {
      await model.close();
    }
  });
});
