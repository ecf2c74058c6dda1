// Turns no A2A task follows reach the client feed (issue 18): a `message.send` delivery's message and reply show in
// its conversation's feed for that conversation's principal, once, and still once after a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage, stateName } from '../../../src/client/daemonClient.js';
import { applyFeed, initialState, type TuiState, withHistory } from '../../../src/client/tuiState.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { feedConfig, TOKENS } from './feedConfig.js';

/** Follows `client`'s feed from the start until `stop` aborts. */
function follow(client: DaemonClient, seen: FeedMessage[], stop: AbortController): Promise<number> {
  return client.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
}

const inSide = (seen: readonly FeedMessage[]) =>
  seen.filter((e) => e.kind === 'message' && e.data['context_id'] === 'side').map((e) => e.data);

describe('turns without an A2A task on the feed', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'done' }],
      match: [
        {
          when_contains: 'tell the side',
          times: 1,
          tool_calls: [{ name: 'message.send', arguments: { to: 'user:alice/side', text: 'side job' } }],
        },
        {
          when_contains: 'tell the failing side',
          times: 1,
          tool_calls: [{ name: 'message.send', arguments: { to: 'user:alice/broken', text: 'broken errand' } }],
        },
        { when_contains: 'tell the failing side', times: 1, content: 'sent' },
        { when_contains: 'broken errand', http_status: 400 },
      ],
    });
  });
  after(() => model.close());

  it('a message.send delivery shows its message and reply to its owner, once across a restart', async () => {
    const dir = tempStateDir();
    let daemon = await startDaemon(dir, feedConfig(model.url), TOKENS);
    const stop = new AbortController();
    const seen: FeedMessage[] = [];
    const bobSeen: FeedMessage[] = [];
    const bobStop = new AbortController();
    try {
      const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      const bob = new DaemonClient({ url: daemon.url, token: TOKENS.BOB_TOKEN });
      const following = follow(alice, seen, stop);
      const bobFollowing = follow(bob, bobSeen, bobStop);
      assert.equal(stateName(await alice.send('tell the side', { contextId: 'main' })), 'completed');
      // Without feedForTurn the delivery's turn runs (its reply is stored) but nothing of it reaches the feed.
      await waitUntil(() => inSide(seen).some((d) => d['role'] === 'agent'), 20_000, 'the side reply on the feed');
      const side = inSide(seen);
      assert.deepEqual(
        side.map((d) => [d['role'], d['text'], d['source']]),
        [
          ['user', 'side job', 'agent_message'],
          ['agent', 'done', 'agent_message'],
        ],
      );
      assert.equal(side[0]?.['turn'], side[1]?.['turn'], 'both name the same turn');
      // The stored history names the same turn, so a client that also reads it shows each message once.
      const history = await alice.history('side');
      assert.deepEqual(
        history.messages.map((m) => [m.role, m.text, m.turn]),
        [
          ['user', 'side job', side[0]?.['turn']],
          ['agent', 'done', side[0]?.['turn']],
        ],
      );
      // The turn's run reaches its owner too, not only the operator: a `turn` start and end, and its activity.
      const ofSide = seen.filter((e) => e.data['turn'] === side[0]?.['turn']);
      const turnStates = ofSide.filter((e) => e.kind === 'turn').map((e) => e.data['state']);
      assert.deepEqual(turnStates, ['working', 'completed'], "the turn starts and ends on its owner's feed");
      assert.ok(
        ofSide.some((e) => e.kind === 'activity' && e.data['phase'] === 'thinking'),
        "the turn's activity reaches its owner",
      );
      // Another principal never sees alice's conversation.
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        bobSeen.filter((e) => ['message', 'turn', 'activity', 'tool'].includes(e.kind)).map((e) => e.kind),
        [],
      );
      stop.abort();
      bobStop.abort();
      await following.catch(() => {});
      await bobFollowing.catch(() => {});
      await daemon.stop();

      daemon = await startDaemon(dir, feedConfig(model.url), TOKENS);
      const again: FeedMessage[] = [];
      const replay = new AbortController();
      const client = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      const replaying = follow(client, again, replay);
      await waitUntil(() => inSide(again).length >= 2, 20_000, 'the replayed feed');
      await new Promise((r) => setTimeout(r, 500));
      replay.abort();
      await replaying.catch(() => {});
      assert.equal(inSide(again).length, 2, 'each message once after the restart');
    } finally {
      stop.abort();
      bobStop.abort();
      await daemon.stop();
    }
  });

  it("a failed task-less turn ends with its error on its owner's feed", async () => {
    const daemon = await startDaemon(tempStateDir(), feedConfig(model.url), TOKENS);
    const stop = new AbortController();
    const seen: FeedMessage[] = [];
    try {
      const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      const following = follow(alice, seen, stop);
      assert.equal(stateName(await alice.send('tell the failing side', { contextId: 'main2' })), 'completed');
      const ended = () =>
        seen.find((e) => e.kind === 'turn' && e.data['context_id'] === 'broken' && e.data['state'] !== 'working');
      // Without the `turn` end a failed delivery left nothing on the feed: no reply, no error.
      await waitUntil(() => ended() !== undefined, 30_000, "the broken turn's end on alice's feed");
      assert.equal(ended()?.data['state'], 'failed');
      assert.ok(String(ended()?.data['message'] ?? '').length > 0, 'the end says why');
      // The client shows it as an error row in that conversation.
      let state = initialState(null);
      for (const e of seen) state = applyFeed({ ...state, self: 'user:alice' }, e);
      const errors = state.rows.filter((r) => r.kind === 'error' && r.ctx === 'broken');
      assert.equal(errors.length, 1, JSON.stringify(state.rows));
      assert.match(errors[0]?.text ?? '', /^failed/);
      assert.equal(state.working, null, 'nothing is left running');
      stop.abort();
      await following.catch(() => {});
    } finally {
      stop.abort();
      await daemon.stop();
    }
  });

  it('shows each message once from the history and the retained feed after retention pruned its task', async () => {
    const dir = tempStateDir();
    const retained = feedConfig(model.url).replace('a2a:\n', 'a2a:\n  tasks: {retain: 1}\n');
    let daemon = await startDaemon(dir, feedConfig(model.url), TOKENS);
    try {
      const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      const first = await alice.send('first words', { contextId: 'pruned' });
      assert.equal(stateName(await alice.send('second words', { contextId: 'pruned' })), 'completed');
      await daemon.stop();
      // Retention runs at start: only the newest terminal task is kept.
      daemon = await startDaemon(dir, retained, TOKENS);
      const again = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      // Retention runs at start: poll until the first task is gone (a premise of the case).
      let gone = false;
      for (let i = 0; i < 100 && !gone; i++) {
        gone = await again.getTask(first.id).then(
          () => false,
          () => true,
        );
        if (!gone) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(gone, 'premise: retention pruned the first task');
      const seen: FeedMessage[] = [];
      const stop = new AbortController();
      const following = follow(again, seen, stop);
      await waitUntil(() => seen.filter((e) => e.kind === 'message').length >= 4, 20_000, 'the retained feed');
      stop.abort();
      await following.catch(() => {});
      const history = await again.history('pruned');
      let state: TuiState = { ...initialState(null), self: 'user:alice' };
      state = withHistory(state, 'pruned', history.messages);
      for (const e of seen) state = applyFeed(state, e);
      const texts = state.rows.filter((r) => r.ctx === 'pruned').map((r) => r.text);
      // Before, the pruned task's messages came twice: the history named the turn, the feed the task.
      assert.deepEqual(texts, ['first words', 'done', 'second words', 'done']);
    } finally {
      await daemon.stop();
    }
  });

  it("tells a conversation's owner when the operator sets its goal", async () => {
    const daemon = await startDaemon(tempStateDir(), feedConfig(model.url), TOKENS);
    const stop = new AbortController();
    const seen: FeedMessage[] = [];
    try {
      const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
      const operator = new DaemonClient({ url: daemon.url, token: TOKENS.OPERATOR_TOKEN });
      assert.equal(stateName(await alice.send('hello', { contextId: 'steered' })), 'completed');
      const following = follow(alice, seen, stop);
      await operator.command('goal.set', { objective: 'ship the report' }, 'user:alice/steered');
      const goal = () => seen.find((e) => e.kind === 'state' && e.data['op'] === 'goal');
      // Before, the event's audience was whoever set the goal: the owner never heard of it.
      await waitUntil(() => goal() !== undefined, 20_000, "the goal on alice's feed");
      assert.equal(goal()?.data['context_id'], 'steered');
      assert.equal((goal()?.data['goal'] as { objective?: string } | null)?.objective, 'ship the report');
      stop.abort();
      await following.catch(() => {});
    } finally {
      stop.abort();
      await daemon.stop();
    }
  });
});
