// The CLI client against a real daemon (issue 18 item 2, interfaces §5 cases 13–16): `send` prints only the reply,
// `--no-wait` then `tasks` shows the task, `status --json` stores no task, `pause` holds a sent message away from
// the model until `resume`, `drain` as a user fails with the daemon's error, and no token is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, stateName } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { processGone, waitUntil } from '../../integration/wait.js';
import type { Daemon } from '../daemon.js';
import { startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';

const OPERATOR_TOKEN = 'op-token-0123456789abcdef0123456789';
const ALICE_TOKEN = 'alice-token-0123456789abcdef012345678';

describe('agentd client subcommands', { timeout: 120_000 }, () => {
  let daemon: Daemon;
  let model: ScriptedModel;
  let stop: () => Promise<void>;
  let operator: DaemonClient;
  const as = (token: string | null) => ({ AGENTD_URL: daemon.url, ...(token ? { AGENTD_TOKEN: token } : {}) });
  const cli = (args: string[], token: string | null = OPERATOR_TOKEN) => runAgentd(args, { env: as(token) });

  before(async () => {
    const lines = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
    ];
    model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [{ when_contains: 'take your time', content: 'late', delay_ms: 60_000 }],
    });
    const yaml = [...lines, 'intelligence:', `  endpoints: ${model.url}`, ''].join('\n');
    daemon = await startDaemon(tempStateDir(), yaml, { ALICE_TOKEN, OPERATOR_TOKEN });
    stop = async () => {
      await daemon.stop();
      await model.close();
    };
    operator = new DaemonClient({ url: daemon.url, token: OPERATOR_TOKEN });
  });
  after(() => stop());

  it('send prints only the reply and exits 0', async () => {
    const run = await cli(['send', 'hello there']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'ok\n');
  });

  it('send --no-wait prints the task id, and tasks lists it', async () => {
    const sent = await cli(['send', '--no-wait', 'a second one']);
    assert.equal(sent.code, 0, sent.stderr);
    const id = sent.stdout.trim();
    assert.match(id, /^[0-9A-Z]{26}$/);
    const listed = await cli(['tasks']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(
      listed.stdout.split('\n').some((line) => line.startsWith(id)),
      listed.stdout,
    );
    const json = await cli(['tasks', '--json']);
    assert.ok((JSON.parse(json.stdout) as { tasks: Array<{ id: string }> }).tasks.some((t) => t.id === id));
  });

  it('status --json prints the status document and stores no task', async () => {
    // Before, every status read stored a completed task, so the listing's total grew by one per read.
    const before = (await operator.listTasks({ pageSize: 1 })).totalSize;
    const run = await cli(['status', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const status = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(status['paused'], false);
    assert.equal(typeof status['running_turns'], 'number');
    assert.equal((await operator.listTasks({ pageSize: 1 })).totalSize, before);
  });

  it('pause holds a sent message away from the model until resume', async () => {
    assert.equal((await cli(['pause'])).code, 0);
    const calls = model.requests.length;
    const sent = await cli(['send', '--no-wait', 'while paused']);
    const id = sent.stdout.trim();
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(model.requests.length, calls, 'the model saw nothing while paused');
    assert.notEqual(stateName(await operator.getTask(id)), 'completed');
    assert.equal((await cli(['resume'])).code, 0);
    let state = '';
    await waitUntil(
      () => {
        void operator.getTask(id).then((t) => {
          state = stateName(t);
        });
        return state === 'completed';
      },
      20_000,
      'the paused message completes after resume',
    );
    assert.ok(model.requests.length > calls);
  });

  it('drain as a user fails with the daemon’s error and a non-zero exit; no token is refused', async () => {
    const drained = await cli(['drain'], ALICE_TOKEN);
    assert.equal(drained.code, 1);
    assert.match(drained.stderr, /command "drain" is for the operator \(-31403\)/);
    const anonymous = await cli(['status'], null);
    assert.notEqual(anonymous.code, 0);
    assert.match(anonymous.stderr, /authentication required/);
    const usage = await cli(['send'], null);
    assert.equal(usage.code, 2, 'a usage error exits 2');
  });

  it('cancel stops a turn inside a long model call; the task stays canceled', async () => {
    const spawns = () => daemon.events.filter((e) => e.event === 'turn.spawn');
    const before = spawns().length;
    const sent = await cli(['send', '--no-wait', 'take your time']);
    const id = sent.stdout.trim();
    await waitUntil(() => spawns().length > before, 20_000, 'the turn starts');
    const spawned = spawns().at(-1);
    const canceled = await cli(['cancel', id]);
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.equal(canceled.stdout, `${id} canceled\n`);
    // The worker that ran it is gone within its cancel grace.
    const pid = Number(spawned?.['worker_pid']);
    await waitUntil(() => processGone(pid), 5_000, 'the worker exits');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(stateName(await operator.getTask(id)), 'canceled', 'it never flips back');
  });

  it('a user reads only its own tasks: the operator’s task is not found', async () => {
    const sent = await cli(['send', '--no-wait', 'operator only']);
    const id = sent.stdout.trim();
    const alice = new DaemonClient({ url: daemon.url, token: ALICE_TOKEN });
    await assert.rejects(alice.getTask(id), /task not found/);
  });
});
