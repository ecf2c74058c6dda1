// Reloading a running daemon's config (issue 21, interfaces §3.6), through the built binary: SIGHUP after a route
// was removed sends the next message routed there to roles.turn; a restart-only path or a typo is refused and the
// running config stays; a turn running across a reload finishes on the model it started with; `agentd reload`.
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { asTask, type Daemon, send, startDaemon } from './daemon.js';
import { runAgentd, tempStateDir } from './harness.js';

const VERDICT = { intent: 'task', needs_plan: false, risk: 'low', route: 'deep' };

/** The model ids the scripted model was asked for by turns (not preflights) whose request contains `text`. */
function turnModels(model: ScriptedModel, text: string): string[] {
  return model.requests
    .map((r) => r.body as { model?: string })
    .filter((b) => JSON.stringify(b).includes(text) && !JSON.stringify(b).includes('PREFLIGHT.'))
    .map((b) => String(b.model));
}

/** Waits for the `nth` event named `name` (1-based) and returns it. */
async function nthEvent(daemon: Daemon, name: string, nth: number): Promise<Record<string, unknown>> {
  await waitUntil(() => daemon.events.filter((e) => e.event === name).length >= nth, 10_000, `${nth}× ${name}`);
  return daemon.events.filter((e) => e.event === name)[nth - 1] as Record<string, unknown>;
}

async function ask(daemon: Daemon, text: string): Promise<void> {
  const client = await clientFor(daemon.url);
  const task = asTask(await within(client.sendMessage(send(text)), 20_000, `reply to ${text}`));
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, text);
}

describe('config reload', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'done' }],
      match: [
        { when_contains: 'alpha job', times: 1, content: VERDICT },
        // The preflight of "beta job" answers late: the reload lands between its verdict's question and the launch.
        { when_contains: 'beta job', times: 1, content: VERDICT, delay_ms: 2_500 },
        { when_contains: 'slow job', times: 1, delay_ms: 2_500, tool_calls: [{ name: 'status', arguments: {} }] },
      ],
    });
  });
  after(async () => model.close());

  const routed = (url: string, routes: string[]) =>
    [
      'a2a:\n  listen: http://127.0.0.1:0',
      'agent:\n  preflight: always',
      `intelligence:\n  endpoints: ${url}\n  model: main-model`,
      '  models:\n    main: {model: main-model}\n    deep: {model: deep-model}\n    quick: {model: quick-model}',
      '  roles:\n    turn: main',
      `  routes:\n${routes.map((r) => `    ${r}: ${r} work`).join('\n')}`,
    ].join('\n');

  it('SIGHUP after removing a route: the message routed there runs on roles.turn with turn.route_removed', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, routed(model.url, ['deep', 'quick']));
    try {
      await ask(daemon, 'alpha job');
      // The premise: before the reload, a message routed to `deep` runs on the route's model.
      assert.deepEqual(turnModels(model, 'alpha job'), ['deep-model']);
      const beta = ask(daemon, 'beta job');
      await waitUntil(() => model.requests.some((r) => JSON.stringify(r.body).includes('beta job')), 10_000, 'beta');
      writeFileSync(join(dir, 'agent.yaml'), routed(model.url, ['quick']));
      daemon.child.kill('SIGHUP');
      const reloaded = await nthEvent(daemon, 'config.reloaded', 1);
      assert.deepEqual(reloaded.changed, ['intelligence.routes.deep']);
      assert.equal(reloaded.generation, 2);
      await beta;
      assert.equal((await nthEvent(daemon, 'turn.route_removed', 1)).route, 'deep');
      assert.deepEqual(turnModels(model, 'beta job'), ['main-model']);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  const plain = (url: string, turnModel: string, extra = '') =>
    `a2a:\n  listen: http://127.0.0.1:0\nagent:\n  preflight: never\nintelligence:\n  endpoints: ${url}\n  model: ${turnModel}\n${extra}`;

  it('refuses a restart-only path and a typo as a whole; the running config stays', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, plain(model.url, 'old-model'));
    try {
      writeFileSync(join(dir, 'agent.yaml'), plain(model.url, 'new-model', `store:\n  path: ${join(dir, 'moved')}\n`));
      daemon.child.kill('SIGHUP');
      assert.deepEqual((await nthEvent(daemon, 'config.reload.restart_required', 1)).paths, ['store.path']);
      writeFileSync(join(dir, 'agent.yaml'), plain(model.url, 'new-model', '  modle: typo\n'));
      daemon.child.kill('SIGHUP');
      const invalid = await nthEvent(daemon, 'config.reload.invalid', 1);
      assert.match(String(invalid.error), /agent\.yaml:8: unknown key 'intelligence\.modle'/);
      await ask(daemon, 'first plain job');
      assert.deepEqual(turnModels(model, 'first plain job'), ['old-model']);
      assert.equal(daemon.events.filter((e) => e.event === 'config.reloaded').length, 0);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  it('a turn running across a reload finishes on its old model; the next turn runs on the new one', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, plain(model.url, 'old-model'));
    try {
      const slow = ask(daemon, 'slow job');
      await waitUntil(() => turnModels(model, 'slow job').length === 1, 10_000, 'the slow turn asks the model');
      writeFileSync(join(dir, 'agent.yaml'), plain(model.url, 'new-model'));
      daemon.child.kill('SIGHUP');
      assert.deepEqual((await nthEvent(daemon, 'config.reloaded', 1)).changed, ['intelligence.model']);
      await slow;
      // Two rounds (the tool call, then the answer), both on the model the turn launched with.
      assert.deepEqual(turnModels(model, 'slow job'), ['old-model', 'old-model']);
      await ask(daemon, 'after job');
      assert.deepEqual(turnModels(model, 'after job'), ['new-model']);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  it('--watch-config reloads when the config file is replaced', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, plain(model.url, 'old-model'), {}, ['--watch-config']);
    try {
      await ask(daemon, 'job before the change');
      assert.equal(daemon.events.filter((e) => e.event === 'config.reloaded').length, 0, 'premise: no reload yet');
      // Written aside and renamed over the file, as editors and ConfigMap updates do.
      writeFileSync(join(dir, 'agent.yaml.new'), plain(model.url, 'watched-model'));
      renameSync(join(dir, 'agent.yaml.new'), join(dir, 'agent.yaml'));
      const reloaded = await nthEvent(daemon, 'config.reloaded', 1);
      assert.equal(reloaded.source, 'watch');
      await ask(daemon, 'watched job');
      assert.deepEqual(turnModels(model, 'watched job'), ['watched-model']);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  it('`agentd reload --url` applies through the operator command, and exits 2 on a refusal', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, plain(model.url, 'old-model'));
    try {
      writeFileSync(join(dir, 'agent.yaml'), plain(model.url, 'cli-model'));
      const applied = await runAgentd(['reload', '--url', daemon.url]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(applied.stdout, 'reloaded: generation 2; changed: intelligence.model\n');
      await ask(daemon, 'cli job');
      assert.deepEqual(turnModels(model, 'cli job'), ['cli-model']);
      writeFileSync(join(dir, 'agent.yaml'), plain(model.url, 'cli-model', 'observability:\n  log_level: debug\n'));
      const refused = await runAgentd(['reload', '--url', daemon.url]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /refused \(restart_required\): restart required for observability\.log_level/);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  // Before the A2A producer read wake_on at each message, it kept the start config's: the message after the reload
  // was still only noted. The instruction is read at each launch.
  it('a reload that adds a2a_message to wake_on and sets agent.instruction: the next message wakes a turn with it', async () => {
    const dir = tempStateDir();
    const woken = (agent: string) =>
      `a2a:\n  listen: http://127.0.0.1:0\nagent:\n  preflight: never\n${agent}intelligence:\n  endpoints: ${model.url}\n  model: wake-model\n`;
    const daemon = await startDaemon(dir, woken('  wake_on: [human_reply]\n'));
    try {
      await ask(daemon, 'noted job');
      assert.deepEqual(turnModels(model, 'noted job'), [], 'premise: the message is only noted');
      writeFileSync(join(dir, 'agent.yaml'), woken('  instruction: Answer like a pirate.\n'));
      daemon.child.kill('SIGHUP');
      const reloaded = await nthEvent(daemon, 'config.reloaded', 1);
      assert.deepEqual(reloaded.changed, ['agent.instruction', 'agent.wake_on']);
      await ask(daemon, 'woken job');
      assert.deepEqual(turnModels(model, 'woken job'), ['wake-model']);
      const asked = model.requests.find((r) => JSON.stringify(r.body).includes('woken job'));
      assert.match(JSON.stringify(asked?.body), /Answer like a pirate/);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  // Before `agentd reload` read AGENTD_TOKEN, a daemon with principals could only be asked with --token on the
  // command line (visible in `ps`).
  it('`agentd reload` takes the operator token from AGENTD_TOKEN', async () => {
    const dir = tempStateDir();
    const guarded = (turnModel: string) =>
      plain(model.url, turnModel).replace(
        'a2a:\n',
        'a2a:\n  principals:\n    - {id: ops, role: operator, match: {bearer: ops-secret-token-1}}\n',
      );
    const daemon = await startDaemon(dir, guarded('old-model'));
    try {
      writeFileSync(join(dir, 'agent.yaml'), guarded('token-model'));
      const anonymous = await runAgentd(['reload', '--url', daemon.url]);
      assert.notEqual(anonymous.code, 0, 'premise: without a token the daemon refuses');
      const applied = await runAgentd(['reload', '--url', daemon.url], { env: { AGENTD_TOKEN: 'ops-secret-token-1' } });
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(applied.stdout, 'reloaded: generation 2; changed: intelligence.model\n');
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });
});
