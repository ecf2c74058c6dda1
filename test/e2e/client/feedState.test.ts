// The instance's state on the client feed (issue 18 item 1, "budget and pause state"): pause and resume reach a
// user as flags, and the instance budget's state is published when a spent window changes it, and again when that
// window resets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage, stateName } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { feedConfig, TOKENS } from './feedConfig.js';

/** One request a window: the first turn spends it. */
const config = (model: string, per: string) =>
  feedConfig(model, [`  budget: {windows: [{per: ${per}, requests: 1}], on_exhausted: refuse}`]);

describe('instance state on the feed', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok' }] });
  });
  after(() => model.close());

  it('tells a user of pause, resume and a spent budget window', async () => {
    const daemon = await startDaemon(tempStateDir(), config(model.url, 'day'), TOKENS);
    const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
    const operator = new DaemonClient({ url: daemon.url, token: TOKENS.OPERATOR_TOKEN });
    const seen: FeedMessage[] = [];
    const stop = new AbortController();
    const following = alice.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
    const states = () => seen.filter((e) => e.kind === 'state').map((e) => e.data);
    try {
      await operator.command('pause');
      await waitUntil(() => states().some((d) => d['op'] === 'pause' && d['paused'] === true), 10_000, 'pause');
      await operator.command('resume');
      await waitUntil(() => states().some((d) => d['op'] === 'resume' && d['paused'] === false), 10_000, 'resume');
      assert.equal(stateName(await alice.send('first')), 'completed');
      await waitUntil(() => states().some((d) => d['budget'] === 'refusing'), 10_000, 'the spent window is shown');
      // The premise: the window really is spent, so a second turn is refused (and no budget event came before).
      assert.notEqual(stateName(await alice.send('second')), 'completed');
      const budgets = states()
        .filter((d) => d['op'] === 'budget')
        .map((d) => d['budget']);
      assert.deepEqual(budgets, ['ok', 'refusing']);
      // A user never sees the operator's full status document, only the flags.
      for (const d of states()) assert.deepEqual(Object.keys(d).sort(), ['budget', 'draining', 'op', 'paused']);
    } finally {
      stop.abort();
      await following.catch(() => {});
      await daemon.stop();
    }
  });

  it('shows `ok` again when the spent window resets, with no task change', { timeout: 150_000 }, async () => {
    // The turn must spend the window and fold inside one minute: start in the minute's first 40 seconds.
    await waitUntil(() => new Date().getSeconds() < 40, 30_000, 'early in a minute');
    const daemon = await startDaemon(tempStateDir(), config(model.url, 'minute'), TOKENS);
    const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
    const seen: FeedMessage[] = [];
    const stop = new AbortController();
    const following = alice.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
    const budgets = () => seen.filter((e) => e.kind === 'state' && e.data['op'] === 'budget');
    try {
      assert.equal(stateName(await alice.send('spend it')), 'completed');
      await waitUntil(() => budgets().some((e) => e.data['budget'] === 'refusing'), 10_000, 'the spent window');
      await waitUntil(() => seen.some((e) => e.kind === 'task' && e.data['state'] === 'completed'), 10_000, 'done');
      const settledAt = Math.max(...seen.map((e) => e.seq));
      assert.equal(budgets().at(-1)?.data['budget'], 'refusing', 'premise: still spent once the turn settled');
      // Without the recheck at the reset, `ok` came only with the next task change, and none comes here.
      const okAfter = () => budgets().find((e) => e.seq > settledAt && e.data['budget'] === 'ok');
      await waitUntil(() => okAfter() !== undefined, 75_000, 'ok at the reset');
      const okAt = okAfter()?.seq ?? 0;
      const between = seen.filter((e) => e.seq > settledAt && e.seq < okAt && e.kind === 'task');
      assert.deepEqual(between, [], 'no task changed in between');
    } finally {
      stop.abort();
      await following.catch(() => {});
      await daemon.stop();
    }
  });
});
