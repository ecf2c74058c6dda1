// The producers reference's trigger cases P-24 and P-25 (§4) over the built daemon: a real process with its config
// file, its SQLite store, its JSON-line events and its A2A listener reached over real HTTP; a restart is a new
// process on the same store. (test/integration/triggers/workflowStarts.test.ts runs both in-process, with more.)
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import Database from 'better-sqlite3';
import { startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { asTask, type Daemon, send, startDaemon } from './daemon.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const SHAPE = `lifecycle: {run_until: drained}
a2a:
  listen: http://127.0.0.1:0
`;

// Counting in memory, as the reference's case does: each looper run reads `count`, stores one more, outputs it.
const LOOP_AND_EVENT = `${SHAPE}workflows:
  - name: looper
    steps:
      s: {kind: loop, interval: 10ms, until: "CEL: last.count >= 3", max_iterations: 20}
      g: {kind: memory.get, depends_on: [s], key: count}
      m: {kind: memory.set, depends_on: [g], key: count, value: "CEL: (steps.g.output == null ? 0 : steps.g.output) + 1"}
      f: {kind: finish, depends_on: [m], output: {count: "CEL: (steps.g.output == null ? 0 : steps.g.output) + 1"}}
  - name: reactor
    steps:
      s: {kind: event, on: workflow.finished, filter: "CEL: payload.workflow == 'looper'"}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.payload.run}}"}
  - name: ported
    steps:
      s: {kind: event, on: workflow_finished, filter: "CEL: payload.workflow == 'looper'"}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.payload.run}}"}
`;

const HOOKS = `${SHAPE}workflows:
  - name: w
    steps:
      hook: {kind: webhook, path: /hooks/ci, auth: {none: true}}
      f: {kind: finish, depends_on: [hook], output: "{{steps.hook.output.body.n}}"}
  - name: signed
    steps:
      hook: {kind: webhook, path: /hooks/signed, auth: {hmac: {secret: "{{secret:HOOK_SECRET}}"}}}
      f: {kind: finish, depends_on: [hook]}
  - name: limited
    steps:
      hook: {kind: webhook, path: /hooks/limited, auth: {none: true}, rate: 1/1h, idempotency: false}
      f: {kind: finish, depends_on: [hook], output: "{{steps.hook.output.body.n}}"}
`;

/** The stored runs of `workflow` in the store under `dir` (read after the daemon exited), oldest first. */
function storedRuns(dir: string, workflow: string): Array<{ status: string; output: unknown; created: number }> {
  const db = new Database(join(dir, 'agentd.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT json FROM workflow_runs').all() as Array<{ json: string }>;
    return rows
      .map((r) => JSON.parse(r.json) as { workflow: string; status: string; output: unknown; created: number })
      .filter((r) => r.workflow === workflow)
      .sort((a, b) => a.created - b.created);
  } finally {
    db.close();
  }
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

const EVERY_2S = `a2a:
  listen: http://127.0.0.1:0
workflows:
  - name: tick
    steps:
      s: {kind: schedule, every: 2s, catch_up: all}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.scheduled_for}}"}
`;

describe('trigger cases over the built daemon', () => {
  it('a bad cron or zone exits 2 with one line naming the workflow, the node and the field', async () => {
    const dir = tempStateDir();
    for (const [field, wanted] of [
      ['cron: "61 * * * *"', /workflow "nightly" step "s": cron: invalid cron expression "61 \* \* \* \*"/],
      ['every: 1m, tz: Mars/Base', /workflow "nightly" step "s": tz: unknown time zone "Mars\/Base"/],
    ] as const) {
      const file = join(dir, 'agentd.yaml');
      const yaml = `workflows:\n  - name: nightly\n    steps:\n      s: {kind: schedule, ${field}}\n      f: {kind: finish, depends_on: [s]}\n`;
      writeFileSync(file, yaml);
      const run = await runAgentd(['--config', file, '--state-dir', join(dir, 'state')], { timeoutMs: 20_000 });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, wanted);
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
    }
  });

  it('every 2s with the daemon SIGKILLed and restarted every 1.5 s for 10 s: one run per occurrence, no gap', async () => {
    const dir = tempStateDir();
    let daemon: Daemon = await startDaemon(dir, EVERY_2S);
    const until = Date.now() + 10_000;
    try {
      while (Date.now() < until) {
        await new Promise((r) => setTimeout(r, 1_500));
        const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
        daemon.child.kill('SIGKILL');
        await exited;
        daemon = await startDaemon(dir, EVERY_2S);
      }
      // The last life fires what the lives before it missed (catch_up: all) and then the next occurrence.
      const fired = () => eventsNamed(daemon, 'start.fired').length;
      await waitUntil(() => fired() > 0, 20_000, 'the last life fires');
    } finally {
      assert.equal(await daemon.stop(), 0, daemon.stderr().slice(-2000));
    }
    const occurrences = storedRuns(dir, 'tick').map((r) => Number(r.output));
    // Re-armed from "now" at each start, a 2 s schedule restarted every 1.5 s would never fire (reference §5 item 14).
    assert.ok(occurrences.length >= 4, `runs: ${occurrences.length}`);
    const sorted = [...occurrences].sort((a, b) => a - b);
    assert.deepEqual(occurrences, sorted, 'in occurrence order');
    const steps = sorted.slice(1).map((t, i) => t - (sorted[i] as number));
    assert.deepEqual(
      steps.filter((d) => d !== 2_000),
      [],
      'each 2 s occurrence started exactly one run, none skipped and none twice',
    );
  });

  for (const [catchUp, fired] of [
    ['one', 1],
    ['none', 0],
  ] as const)
    it(`catch_up ${catchUp}: a 5 s outage of a 2 s schedule fires ${fired} missed occurrence(s) in the next life`, async () => {
      const yaml = EVERY_2S.replace('catch_up: all', `catch_up: ${catchUp}`);
      const dir = tempStateDir();
      const life1 = await startDaemon(dir, yaml);
      await waitUntil(() => eventsNamed(life1, 'start.fired').length > 0, 20_000, 'life 1 fires');
      const exited = new Promise((resolve) => life1.child.once('exit', resolve));
      life1.child.kill('SIGKILL');
      await exited;
      await new Promise((r) => setTimeout(r, 5_000)); // the outage: two occurrences or more come due meanwhile
      const life2 = await startDaemon(dir, yaml);
      try {
        await waitUntil(() => eventsNamed(life2, 'start.schedule.missed').length > 0, 20_000, 'life 2 sees the miss');
        const [missed] = eventsNamed(life2, 'start.schedule.missed');
        assert.equal(missed?.fired, fired);
        assert.ok(Number(missed?.skipped) >= 2 - fired, `skipped ${String(missed?.skipped)}`);
        assert.equal(missed?.catch_up, catchUp);
      } finally {
        assert.equal(await life2.stop(), 0, life2.stderr().slice(-2000));
      }
    });

  it('a workflow a turn creates at run time with a loop start fires in the same life', async () => {
    const definition = {
      name: 'poller',
      steps: {
        s: { kind: 'loop', interval: '20ms', max_iterations: 3 },
        f: { kind: 'finish', depends_on: 's', output: '{{steps.s.output.iteration}}' },
      },
    };
    const model = await startScriptedModel({
      turns: [{ tool_calls: [{ name: 'workflow.create', arguments: { definition } }] }, { content: 'created' }],
    });
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, `${SHAPE}intelligence:\n  endpoints: ${model.url}\n`);
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await within(client.sendMessage(send('make a poller')), 20_000, 'the turn answers'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, 'premise: the turn completed');
      await waitUntil(() => eventsNamed(daemon, 'start.loop.stopped').length > 0, 20_000, 'the loop ran out');
      assert.deepEqual(
        eventsNamed(daemon, 'start.loop.stopped').map((e) => e.reason),
        ['max_iterations'],
      );
      assert.deepEqual(
        eventsNamed(daemon, 'run.done').map((e) => [e.workflow, e.status]),
        [
          ['poller', 'completed'],
          ['poller', 'completed'],
          ['poller', 'completed'],
        ],
      );
      assert.equal(eventsNamed(daemon, 'proc.ready').length, 1, 'one life');
    } finally {
      assert.equal(await daemon.stop(), 0, daemon.stderr().slice(-2000));
      await model.close();
    }
  });

  it('event starts on turn lifecycle events: a finished turn starts `turn.finished` runs, not `turn_failed` ones', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'hello' }] });
    const dir = tempStateDir();
    const yaml = `${SHAPE}intelligence:\n  endpoints: ${model.url}\nworkflows:
  - name: greeter
    steps:
      s: {kind: event, on: turn.finished, filter: "CEL: payload.kind == 'a2a_message'"}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.payload.conversation}}"}
  - name: mourner
    steps:
      s: {kind: event, on: turn_failed}
      f: {kind: finish, depends_on: [s]}
`;
    const daemon = await startDaemon(dir, yaml);
    let contextId = '';
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await within(client.sendMessage(send('hi')), 20_000, 'the turn answers'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, 'premise: the turn completed');
      contextId = task.contextId;
      const fired = () => eventsNamed(daemon, 'start.fired').filter((e) => e.kind === 'event');
      await waitUntil(
        () => eventsNamed(daemon, 'run.done').length > 0 && fired().length > 0,
        20_000,
        'the greeter run ended',
      );
      assert.deepEqual(
        fired().map((e) => [e.trigger, e.on]),
        [['greeter.s', 'turn.finished']],
      );
    } finally {
      assert.equal(await daemon.stop(), 0, daemon.stderr().slice(-2000));
      await model.close();
    }
    const greeted = storedRuns(dir, 'greeter');
    assert.equal(greeted.length, 1);
    assert.equal(greeted[0]?.status, 'completed');
    assert.ok(String(greeted[0]?.output).endsWith(contextId), `the turn's conversation: ${String(greeted[0]?.output)}`);
    assert.equal(storedRuns(dir, 'mourner').length, 0);
  });

  it('P-24: a loop counting in memory stops by `until` after three runs; event starts fire once per run', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, LOOP_AND_EVENT);
    try {
      await waitUntil(() => eventsNamed(daemon, 'start.loop.stopped').length > 0, 20_000, 'the loop stopped');
      const ended = (workflow: string) => eventsNamed(daemon, 'run.done').filter((e) => e.workflow === workflow);
      await waitUntil(
        () => ended('reactor').length === 3 && ended('ported').length === 3,
        20_000,
        'both event starts ran once per looper run',
      );
      assert.deepEqual(
        eventsNamed(daemon, 'start.loop.stopped').map((e) => e.reason),
        ['until'],
      );
      assert.deepEqual(
        ended('looper').map((e) => e.status),
        ['completed', 'completed', 'completed'],
      );
    } finally {
      assert.equal(await daemon.stop(), 0, daemon.stderr().slice(-2000));
    }
    assert.deepEqual(
      storedRuns(dir, 'looper').map((r) => r.output),
      [{ count: 1 }, { count: 2 }, { count: 3 }],
    );
    assert.equal(storedRuns(dir, 'reactor').length, 3);
    assert.equal(storedRuns(dir, 'ported').length, 3, '`on: workflow_finished` behaves as `workflow.finished`');
  });

  it('P-25: one key twice is one run, still a duplicate after a restart; unsigned hmac is 401; a burst past the rate is 429', async () => {
    const dir = tempStateDir();
    const env = { HOOK_SECRET: 's3cret' };
    const life1 = await startDaemon(dir, HOOKS, env);
    try {
      const first = await post(`${life1.url}/hooks/ci`, '{"n": 7}', { 'Idempotency-Key': 'k1' });
      assert.equal(first.status, 202);
      assert.deepEqual(await first.json(), { status: 'accepted', workflow: 'w' });
      const again = await post(`${life1.url}/hooks/ci`, '{"n": 8}', { 'Idempotency-Key': 'k1' });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), { status: 'duplicate', idempotency_key: 'k1' });
      const unsigned = await post(`${life1.url}/hooks/signed`, '{"n": 1}');
      assert.equal(unsigned.status, 401);
      assert.deepEqual(await unsigned.json(), { error: 'authentication failed' });
      // A burst over the rate limit: 429 for the excess, and the accepted delivery runs to its end.
      const burst = await Promise.all([1, 2, 3].map((n) => post(`${life1.url}/hooks/limited`, `{"n": ${n}}`)));
      assert.deepEqual(burst.map((r) => r.status).sort(), [202, 429, 429]);
      await waitUntil(() => eventsNamed(life1, 'run.done').length === 2, 20_000, 'the accepted runs ended');
      assert.deepEqual(
        eventsNamed(life1, 'run.start')
          .map((e) => e.workflow)
          .sort(),
        ['limited', 'w'],
        'one run per accepted delivery, none for the refused ones',
      );
    } finally {
      assert.equal(await life1.stop(), 0, life1.stderr().slice(-2000));
    }
    const life2 = await startDaemon(dir, HOOKS, env);
    try {
      const later = await post(`${life2.url}/hooks/ci`, '{"n": 9}', { 'Idempotency-Key': 'k1' });
      assert.equal(later.status, 200);
      assert.deepEqual(await later.json(), { status: 'duplicate', idempotency_key: 'k1' });
      assert.deepEqual(eventsNamed(life2, 'run.start'), [], 'no run in the second life');
    } finally {
      assert.equal(await life2.stop(), 0, life2.stderr().slice(-2000));
    }
    assert.deepEqual(
      storedRuns(dir, 'w').map((r) => [r.status, r.output]),
      [['completed', 7]],
    );
    assert.deepEqual(
      storedRuns(dir, 'limited').map((r) => r.status),
      ['completed'],
    );
  });
});
