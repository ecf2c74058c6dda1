// The CLI client's cases 13–15 of the interfaces reference §5 (issue 18 item 2) against a real daemon: `tasks`
// pages newest first with the next page's command on stderr; the operator's `drain` returns at once (exit 0) while a
// turn still runs; a `send` to the draining daemon exits 1 with the daemon's message; the daemon then exits 0 once
// the running turn has ended.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, stateName } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';

describe('agentd send, tasks and drain (interfaces §5 cases 13–15)', { timeout: 150_000 }, () => {
  let daemon: Daemon;
  let model: ScriptedModel;
  const cli = (args: string[]) => runAgentd(args, { env: { AGENTD_URL: daemon.url } });

  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [{ when_contains: 'a slow one', content: 'slow done', delay_ms: 12_000 }],
    });
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      'lifecycle:',
      '  drain_timeout: 40s',
      'intelligence:',
      `  endpoints: ${model.url}`,
      '',
    ].join('\n');
    daemon = await startDaemon(tempStateDir(), yaml);
  });
  after(async () => {
    if (daemon.child.exitCode === null) await daemon.stop();
    await model.close();
  });

  it('tasks pages newest first: every task once, the next page named on stderr', async () => {
    const sent: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const run = await cli(['send', '--no-wait', `page message ${i}`]);
      assert.equal(run.code, 0, run.stderr);
      sent.push(run.stdout.trim());
    }
    const seen: string[] = [];
    let page: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const run = await cli(['tasks', '--limit', '2', ...(page ? ['--page', page] : [])]);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.split('\n').filter(Boolean);
      assert.ok(lines.length <= 2, `a page holds at most --limit tasks:\n${run.stdout}`);
      seen.push(...lines.map((line) => line.split(/\s+/)[0] ?? ''));
      page = /more: agentd tasks --page (\S+)/.exec(run.stderr)?.[1];
      if (!page) break;
    }
    assert.equal(new Set(seen).size, seen.length, `no task on two pages: ${seen.join(' ')}`);
    assert.deepEqual(seen.slice(0, 5), [...sent].reverse(), 'the newest first');
    assert.ok(seen.length >= 5 && seen.length <= 6, 'the pages end');
  });

  it('drain returns at once with exit 0; a send meanwhile fails with the daemon’s message; the daemon exits 0', async () => {
    const operator = new DaemonClient({ url: daemon.url });
    const spawned = () => daemon.events.filter((e) => e.event === 'turn.spawn').length;
    const before = spawned();
    const slow = await cli(['send', '--no-wait', 'a slow one']);
    assert.equal(slow.code, 0, slow.stderr);
    const id = slow.stdout.trim();
    await waitUntil(() => spawned() > before, 20_000, 'the slow turn starts');
    const ctx = daemon.events.filter((e) => e.event === 'turn.spawn').at(-1)?.['ctx'];
    const exited = new Promise<number | null>((resolve) => daemon.child.once('exit', resolve));

    const drained = await cli(['drain']);
    assert.equal(drained.code, 0, drained.stderr);
    // It returned while the turn still runs (its model call takes 12 s, room for two CLI starts on a loaded machine):
    // the drain waits for the turn, the command does not.
    assert.equal(stateName(await operator.getTask(id)), 'working', 'premise: the slow turn still runs');

    const refused = await cli(['send', 'one more please']);
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(refused.stdout, '', 'nothing on stdout');
    assert.match(refused.stderr, /^agentd send: the agent is draining and accepts no new messages.*\(-?\d+\)\n$/);

    assert.equal(await within(exited, 45_000, 'the daemon exits within drain_timeout'), 0);
    const ended = daemon.events.find((e) => e.event === 'turn.done' && e.ctx === ctx);
    assert.equal(ended?.['status'], 'completed', 'the running turn finished before the daemon exited');
    assert.ok(
      !model.requests.some((r) => JSON.stringify(r.body).includes('one more please')),
      'the refused message never reached the model',
    );
  });
});
