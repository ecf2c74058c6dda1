// Producers' controls wait for the restore: before it, the supervisor port refuses (steering a conversation not
// yet loaded committed over the stored one, and was lost), and the A2A backend holds a caller's request until
// the restore is done.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { compileConfig } from '../../../src/config/compile.js';
import type { Config } from '../../../src/config/types.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Producer, ProducerContext, SupervisorPort } from '../../../src/runtime/producer.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import { openStore } from '../../../src/store/openStore.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../wait.js';

const silent = createLogger({ level: 'error', write: () => {} });

/** A producer that steers conversation `kept` at start (too early) and again once the restore is done. */
function steerer() {
  const seen: { early: unknown; late: Promise<void> | null } = { early: null, late: null };
  const producer: Producer = {
    name: 'steerer',
    start: (ctx: ProducerContext) => {
      try {
        ctx.supervisor.steering.setMode('kept', 'operator', 'plan');
        seen.early = 'accepted';
      } catch (err) {
        seen.early = err;
      }
      // A stored conversation is loaded on demand: steering one loads it first.
      seen.late = ctx.restored
        .then(() => ctx.supervisor.intake.load('kept'))
        .then(() => ctx.supervisor.steering.setMode('kept', 'operator', 'plan'));
    },
    stop: () => {},
  };
  return { producer, seen };
}

describe('producers and the restore', () => {
  it('the supervisor port refuses calls before the restore and serves them after; the stored conversation stays', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'noted' }] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-restore-first-'));
    const config: Readonly<Config> = compileConfig({
      files: [],
      env: { AGENTD_STATE_DIR: dir },
      flags: { intelligence: model.url, model: 'test-model' },
      cwd: dir,
    });
    try {
      const first = await startRuntime(config, { log: silent, warmWorkers: 0 });
      const { record } = await first.supervisor.accept({
        context_id: 'kept',
        text: 'remember me',
        principal: 'operator',
      });
      await within(first.supervisor.outcomeOf(record.id), 20_000, 'the first turn');
      await first.stop();

      const { producer, seen } = steerer();
      const events: Array<Record<string, unknown>> = [];
      const log = createLogger({ level: 'warn', write: (line) => events.push(JSON.parse(line)) });
      const second = await startRuntime(config, { log, warmWorkers: 0, producers: [producer] });
      try {
        assert.match(String(seen.early), /still restoring/, 'a call before the restore is refused');
        await within(seen.late ?? Promise.reject(new Error('no late call')), 5_000, 'the call after the restore');
        const kept = second.supervisor.conversation('kept');
        assert.equal(kept?.controls?.mode, 'plan', 'the call after the restore steered the stored conversation');
        assert.ok(
          kept?.messages.some((m) => m.role === 'user' && m.text === 'remember me'),
          'the stored conversation kept its messages',
        );
        // What an early call did before: a commit on top of revision 0, refused by the store (the change lost).
        assert.deepEqual(
          events.filter((e) => e.event === 'store.checkpoint.fail'),
          [],
          'no write over the stored conversation',
        );
      } finally {
        await second.stop();
      }
    } finally {
      await model.close();
    }
  });

  it('the A2A backend holds a request until the restore is done', async () => {
    const store = openStore({ kind: 'sqlite', path: mkdtempSync(join(tmpdir(), 'agentd-restore-a2a-')) });
    const calls: string[] = [];
    const supervisor = {
      steering: { setMode: (ctx: string) => void calls.push(`setMode ${ctx}`) },
      intake: {
        admit: async (_p: string, ctx: string) => {
          calls.push(`admit ${ctx}`);
          return { release: () => {} };
        },
      },
    } as unknown as SupervisorPort;
    let open: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      open = resolve;
    });
    const backend = new TaskBackend({
      store,
      log: silent,
      now: Date.now,
      drain: () => {},
      supervisor,
      accept: () => Promise.reject(new Error('accepted')),
      ready,
    });
    const alice: Principal = { id: 'user:alice', role: 'user', grants: [] };
    try {
      const sent = backend.send(alice, { text: 'hi', contextId: 'c', metadata: { 'agentd/mode': 'plan' } });
      sent.catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(calls, [], 'nothing reached the supervisor before the restore');
      open();
      await assert.rejects(within(sent, 5_000, 'the send'), /accepted/, 'premise: the send then went on to accept');
      assert.deepEqual(calls, ['admit user:alice/c', 'setMode user:alice/c']);
    } finally {
      await store.close();
    }
  });
});
