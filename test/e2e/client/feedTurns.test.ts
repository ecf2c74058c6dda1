// Turns no A2A task follows reach the client feed (issue 18): a `message.send` delivery's message and reply show in
// its conversation's feed for that conversation's principal, once, and still once after a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage, stateName } from '../../../src/client/daemonClient.js';
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
      // Another principal never sees alice's conversation.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(bobSeen.filter((e) => e.kind === 'message').length, 0);
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
});
