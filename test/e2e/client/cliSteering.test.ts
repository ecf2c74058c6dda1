// More of the CLI client against a real daemon (issue 18 item 2): `send --plan` runs the turn in plan mode (the
// model reads the plan-mode note; a plain send does not); `goal set|get|clear` on a conversation answers the
// daemon's JSON and the goal really changes; `log` follows the feed (from `--since 0`, also as `--json` lines with
// rising seqs) and ends cleanly on SIGTERM.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, runAgentd, tempStateDir } from '../harness.js';

const PLAN_NOTE = 'Plan mode: investigate with read-only tools only';

describe('agentd send --plan, goal, log', { timeout: 120_000 }, () => {
  let daemon: Daemon;
  let model: ScriptedModel;
  const cli = (args: string[]) => runAgentd(args, { env: { AGENTD_URL: daemon.url } });
  const lastRequest = (): string => JSON.stringify(model.requests.at(-1)?.body ?? {});

  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok' }] });
    const yaml = ['a2a:', '  listen: http://127.0.0.1:0', 'intelligence:', `  endpoints: ${model.url}`, ''];
    daemon = await startDaemon(tempStateDir(), yaml.join('\n'));
  });
  after(async () => {
    await daemon?.stop();
    await model?.close();
  });

  it('send --plan runs the turn in plan mode; a plain send does not', async () => {
    const planned = await cli(['send', '--plan', 'propose a layout']);
    assert.equal(planned.code, 0, planned.stderr);
    assert.equal(planned.stdout, 'ok\n');
    assert.ok(lastRequest().includes(PLAN_NOTE), 'the model read the plan-mode note');
    const plain = await cli(['send', 'just answer']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(!lastRequest().includes(PLAN_NOTE), 'no plan-mode note without --plan');
  });

  it('goal set, get and clear a conversation’s goal', async () => {
    const client = new DaemonClient({ url: daemon.url });
    const task = await client.send('a conversation for the goal');
    const ctx = task.contextId;
    // Plan mode holds goal pursuit: the goal is only stored and read here, no turn runs for it.
    await client.command('mode', { mode: 'plan' }, ctx);
    const set = await cli(['goal', 'set', 'ship the report', '--conversation', ctx]);
    assert.equal(set.code, 0, set.stderr);
    const got = await cli(['goal', 'get', '--conversation', ctx]);
    assert.equal(got.code, 0, got.stderr);
    const goal = (JSON.parse(got.stdout) as { goal: { objective: string; status: string } | null }).goal;
    assert.equal(goal?.objective, 'ship the report');
    assert.equal(goal?.status, 'active');
    const cleared = await cli(['goal', 'clear', '--conversation', ctx]);
    assert.equal(cleared.code, 0, cleared.stderr);
    const after = await cli(['goal', 'get', '--conversation', ctx]);
    assert.equal((JSON.parse(after.stdout) as { goal: unknown }).goal, null);
    const bad = await cli(['goal', 'drop', '--conversation', ctx]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /goal drop: expected set, get or clear/);
  });

  /** `agentd log ARGS` running; its stdout so far, and a stop that SIGTERMs it and gives its exit code. */
  const follow = (args: string[]) => {
    const child: ChildProcess = spawn(process.execPath, [AGENTD_BIN, 'log', ...args], {
      env: { PATH: process.env.PATH ?? '', AGENTD_URL: daemon.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return {
      out: () => out,
      err: () => err,
      stop: async () => {
        child.kill('SIGTERM');
        return within(exited, 10_000, 'agentd log ends on SIGTERM');
      },
    };
  };

  it('log follows the feed: new events live, every retained one with --since 0, --json lines in seq order', async () => {
    const live = follow([]);
    const all = follow(['--since', '0', '--json']);
    try {
      await waitUntil(() => live.err().includes('agentd log: connected'), 10_000, 'log connects');
      const sent = await cli(['send', 'log me please']);
      assert.equal(sent.code, 0, sent.stderr);
      await waitUntil(() => / message user ctx-\S+ log me please/.test(live.out()), 10_000, 'the user message line');
      await waitUntil(() => / message agent ctx-\S+ ok/.test(live.out()), 10_000, 'the reply line');
      assert.match(live.out(), /^\d+ task \S+ completed ok$/m);
      assert.ok(!live.out().includes('propose a layout'), 'without --since, only new events');
      await waitUntil(() => all.out().includes('log me please'), 10_000, '--since 0 reaches the newest');
      const events = all
        .out()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { seq: number; kind: string; data: Record<string, unknown> });
      const seqs = events.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'in seq order',
      );
      assert.equal(new Set(seqs).size, seqs.length, 'no event twice');
      assert.ok(
        events.some((e) => e.kind === 'message' && e.data['text'] === 'propose a layout'),
        'from the start',
      );
    } finally {
      assert.equal(await live.stop(), 0);
      assert.equal(await all.stop(), 0);
    }
  });
});
