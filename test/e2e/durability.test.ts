// Crash recovery through the real binary: a SIGKILL between "accepted" and "answered" replays the message,
// which is answered exactly once; a later start with the same prompt does nothing new.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

async function userMessages(dir: string, text: string): Promise<number> {
  const store = new SqliteStore(dir);
  try {
    const root = (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'root');
    return root?.messages.filter((m) => m.role === 'user' && m.text === text).length ?? 0;
  } finally {
    await store.close();
  }
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe('durable inbox across SIGKILL', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'answer after restart' }],
      match: [{ when_contains: 'slow crash', content: 'never seen', delay_ms: 60_000, times: 1 }],
    });
  });
  after(async () => model.close());

  it('a kill right after the inbox write replays once; a further start does nothing new', async () => {
    const dir = tempStateDir();
    const args = ['--intelligence', model.url, '--prompt', 'kill me after accept'];
    const env = { AGENTD_STATE_DIR: dir };
    const life1 = await runAgentd(args, { env: { ...env, AGENTD_TEST_KILL_AT: 'inbox.after_put' } });
    assert.equal(life1.signal, 'SIGKILL');
    assert.equal(eventsNamed(life1, 'turn.spawn').length, 0, 'premise: died before any turn');

    const life2 = await runAgentd(args, { env });
    assert.equal(life2.code, 0, life2.stderr);
    assert.equal(life2.stdout, 'answer after restart\n');
    assert.equal(eventsNamed(life2, 'restore.done')[0]?.pending, 1);
    assert.equal(eventsNamed(life2, 'prompt.skipped')[0]?.reason, 'pending');
    assert.equal(eventsNamed(life2, 'turn.spawn').length, 1);

    const requestsBefore = model.requests.length;
    const life3 = await runAgentd(args, { env });
    assert.equal(life3.code, 0, life3.stderr);
    assert.equal(life3.stdout, 'answer after restart\n');
    assert.equal(eventsNamed(life3, 'prompt.skipped')[0]?.reason, 'answered');
    assert.equal(eventsNamed(life3, 'turn.spawn').length, 0);
    assert.equal(model.requests.length, requestsBefore, 'no model call for an answered prompt');
    assert.equal(await userMessages(dir, 'kill me after accept'), 1);
  });

  it('a supervisor killed mid-turn takes its worker down; the next start answers exactly once', async () => {
    const dir = tempStateDir();
    const args = ['--intelligence', model.url, '--prompt', 'slow crash'];
    let workerPid = 0;
    const life1 = await runAgentd(args, {
      env: { AGENTD_STATE_DIR: dir },
      onEvent: (ev, child) => {
        if (ev.event === 'turn.spawn') {
          workerPid = Number(ev.worker_pid);
          // Kill once the slow request is in flight, so the restart's request is the fast one.
          const sent = model.requests.length + 1;
          void waitUntil(() => model.requests.length >= sent, 10_000, 'the slow request reaches the model').then(() =>
            child.kill('SIGKILL'),
          );
        }
      },
    });
    assert.equal(life1.signal, 'SIGKILL');
    assert.ok(workerPid > 0, 'premise: a worker was spawned');
    await waitUntil(() => processGone(workerPid), 10_000, 'the orphaned worker exits');

    const life2 = await runAgentd(args, { env: { AGENTD_STATE_DIR: dir } });
    assert.equal(life2.code, 0, life2.stderr);
    assert.equal(life2.stdout, 'answer after restart\n');
    assert.equal(eventsNamed(life2, 'turn.spawn').length, 1);
    assert.equal(await userMessages(dir, 'slow crash'), 1);
  });
});
