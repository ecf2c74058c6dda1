// Two principals' conversations named alike stay apart in the operator's view (issue 18 review): feed rows carry
// their owner and stored conversation, the TUI/web reducer keys another principal's rows by that conversation, a
// reply the operator types there goes into it, and `conversation.list` names every conversation, paged.
// Without the owner on the feed, alice's `x` and the operator's `x` both arrive as `context_id: "x"` and fold into
// one view: the `visibleRows` assertions below fail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage, stateName } from '../../../src/client/daemonClient.js';
import { applyFeed, initialState, type TuiState, visibleRows } from '../../../src/client/tuiState.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { feedConfig, TOKENS } from './feedConfig.js';

/** Alice's `x` as stored (principals are namespaced by role), and as the operator addresses it. */
const ALICE_X = 'user:alice/x';

const texts = (state: TuiState, ctx: string) => visibleRows({ ...state, ctx }).map((r) => `${r.by ?? '-'}:${r.text}`);

describe("the operator's view of several principals", { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok' }] });
  });
  after(() => model.close());

  it("keeps alice's x apart from the operator's x, and lists both", async () => {
    const daemon = await startDaemon(tempStateDir(), feedConfig(model.url), TOKENS);
    const alice = new DaemonClient({ url: daemon.url, token: TOKENS.ALICE_TOKEN });
    const root = new DaemonClient({ url: daemon.url, token: TOKENS.OPERATOR_TOKEN });
    const seen: FeedMessage[] = [];
    const stop = new AbortController();
    const following = root.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
    try {
      assert.equal(stateName(await alice.send('from alice', { contextId: 'x' })), 'completed');
      assert.equal(stateName(await root.send('from root', { contextId: 'x' })), 'completed');
      const agentRows = () => seen.filter((e) => e.kind === 'message' && e.data['role'] === 'agent').length;
      await waitUntil(() => agentRows() >= 2, 10_000, 'both replies on the feed');
      // The premise: both principals' rows name the same context id.
      const contexts = seen.filter((e) => e.kind === 'message').map((e) => e.data['context_id']);
      assert.deepEqual([...new Set(contexts)], ['x']);
      const self = (await root.conversations({ limit: 1 })).you.principal;
      let state = seen.reduce(applyFeed, { ...initialState(null), self });
      assert.deepEqual(texts(state, 'x'), ['-:from root', '-:ok']);
      assert.deepEqual(texts(state, ALICE_X), ['user:alice:from alice', 'user:alice:ok']);

      // A reply typed in alice's view (its key is the context id the operator addresses) reaches her x only.
      const reply = await root.send('root answers', { contextId: ALICE_X });
      assert.equal(stateName(reply), 'completed');
      assert.equal(reply.contextId, ALICE_X);
      const mine = (await alice.history('x')).messages.map((m) => m.text);
      assert.ok(mine.includes('root answers'), `alice's x: ${mine.join(' | ')}`);
      const own = (await root.history('x')).messages.map((m) => m.text);
      assert.ok(!own.includes('root answers') && !own.includes('from alice'), `root's x: ${own.join(' | ')}`);
      await waitUntil(() => agentRows() >= 3, 10_000, 'the reply on the feed');
      state = seen.reduce(applyFeed, { ...initialState(null), self });
      assert.ok(texts(state, ALICE_X).includes('-:root answers'));
      assert.ok(!texts(state, 'x').includes('-:root answers'));

      // conversation.list: the operator sees both (paged), alice only her own, by her own context id.
      const first = await root.conversations({ limit: 1 });
      assert.deepEqual(first.you, { principal: self, role: 'operator' });
      assert.equal(first.conversations.length, 1);
      assert.notEqual(first.next, null);
      const second = await root.conversations({ limit: 1, after: first.next ?? '' });
      const all = [...first.conversations, ...second.conversations].map((c) => `${c.principal}:${c.conversation}`);
      assert.deepEqual(all, [`user:alice:${ALICE_X}`, `${self}:x`]);
      assert.equal(second.next, null);
      const hers = await alice.conversations();
      assert.deepEqual(hers.conversations, [{ conversation: ALICE_X, context_id: 'x', principal: 'user:alice' }]);
      // A read creates no task.
      assert.equal((await alice.listTasks()).tasks.length, 1);
    } finally {
      stop.abort();
      await following.catch(() => {});
      await daemon.stop();
    }
  });
});
