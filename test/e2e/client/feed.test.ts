// The client feed over real daemons (issue 18 item 1): a client following the feed across a daemon restart gets
// every event once, in order, with seqs that keep counting; a cursor that retention dropped is told to reload;
// a user sees only its own conversations' events.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage, stateName } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { freePort } from '../freePort.js';
import { tempStateDir } from '../harness.js';

const config = (port: number, model: string, extra: string[] = []) =>
  ['a2a:', `  listen: http://127.0.0.1:${port}`, ...extra, 'intelligence:', `  endpoints: ${model}`, ''].join('\n');

describe('the client feed', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok' }] });
  });
  after(() => model.close());

  it('resumes across a daemon restart with every event once, in order', async () => {
    const dir = tempStateDir();
    const port = await freePort();
    const yaml = config(port, model.url);
    let daemon = await startDaemon(dir, yaml);
    const client = new DaemonClient({ url: daemon.url });
    const seen: FeedMessage[] = [];
    const links: boolean[] = [];
    const stop = new AbortController();
    const following = client.feed(
      { onEvent: (e) => seen.push(e), onConnection: (up) => links.push(up) },
      { since: 0, signal: stop.signal },
    );
    const replies = () => seen.filter((e) => e.kind === 'message' && e.data['role'] === 'agent').length;
    try {
      await client.send('first');
      await client.send('second');
      await waitUntil(() => replies() === 2, 20_000, 'both replies are in the feed');
      assert.equal(await daemon.stop(), 0);
      daemon = await startDaemon(dir, yaml);
      await client.send('third');
      await client.send('fourth');
      await waitUntil(() => replies() === 4, 20_000, 'the replies after the restart are in the feed');
      // The premise: the client really lost its connection and came back.
      assert.deepEqual(links.slice(0, 3), [true, false, true]);
    } finally {
      stop.abort();
      await following;
      await daemon.stop();
    }
    const seqs = seen.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'seq 1, 2, 3, … with no gap and no duplicate',
    );
    const texts = seen.filter((e) => e.kind === 'message').map((e) => `${e.data['role']}:${e.data['text']}`);
    assert.deepEqual(texts, [
      'user:first',
      'agent:ok',
      'user:second',
      'agent:ok',
      'user:third',
      'agent:ok',
      'user:fourth',
      'agent:ok',
    ]);
  });

  it('a crash right after a fold commits loses none of its feed events', async () => {
    // Before, the task's end and the reply were appended to the feed after the fold's commit, in a second
    // transaction: a crash between the two left a completed task whose end no client ever saw.
    const dir = tempStateDir();
    const yaml = config(await freePort(), model.url);
    const first = await startDaemon(dir, yaml, { AGENTD_TEST_KILL_AT: 'fold.after_commit' });
    const died = new Promise((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
    const task = await new DaemonClient({ url: first.url }).send('crash after this fold', { wait: false });
    assert.equal(await within(died, 30_000, 'the daemon dies at the kill point'), 'SIGKILL');
    const second = await startDaemon(dir, yaml);
    try {
      const client = new DaemonClient({ url: second.url });
      assert.equal(stateName(await client.getTask(task.id)), 'completed', 'premise: the fold had committed');
      const seen: FeedMessage[] = [];
      const stop = new AbortController();
      const following = client.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
      const mine = () =>
        seen
          .filter((e) => e.data['task'] === task.id && e.kind !== 'activity')
          .map((e) => `${e.kind}:${e.data['state'] ?? e.data['text']}`);
      await waitUntil(() => mine().includes('message:ok'), 10_000, "the task's end and its reply are in the feed");
      stop.abort();
      await following;
      assert.deepEqual(mine(), ['message:crash after this fold', 'task:working', 'task:completed', 'message:ok']);
    } finally {
      await second.stop();
    }
  });

  it('drops a client that stops reading, with a reload hint, instead of buffering for it without bound', async () => {
    // Before, every event was written whatever res.write answered: a stalled client's share of the daemon's memory
    // grew with every event, and it was never dropped.
    const daemon = await startDaemon(tempStateDir(), config(await freePort(), model.url));
    const socket = connect(Number(new URL(daemon.url).port), '127.0.0.1');
    try {
      const client = new DaemonClient({ url: daemon.url });
      await client.command('pause'); // the messages below queue: only their feed events are made
      let received = '';
      let closed = false;
      socket.on('data', (c: Buffer) => {
        received += c.toString();
      });
      socket.on('close', () => {
        closed = true;
      });
      socket.write('GET /feed?since=latest HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await waitUntil(() => received.includes('event: hello'), 10_000, 'the stream starts');
      socket.pause(); // the client stops reading: the socket's buffers fill up
      const dropped = () =>
        daemon.events.some((e) => e.event === 'a2a.request' && e.method === 'feed' && e.outcome === 'behind');
      const big = 'x'.repeat(256 * 1024);
      for (let i = 0; i < 200 && !dropped(); i++) await client.send(`${i} ${big}`, { wait: false });
      await waitUntil(dropped, 20_000, 'the daemon drops the stalled client');
      socket.resume();
      await waitUntil(() => closed, 20_000, 'the stream ends');
      assert.match(received, /event: reload\ndata: \{"reason":"behind","from":\d+\}/, 'the last event says reload');
    } finally {
      socket.destroy();
      await daemon.stop();
    }
  });

  it('tells a client whose cursor fell out of retention to reload', async () => {
    const dir = tempStateDir();
    const port = await freePort();
    const yaml = config(port, model.url, ['  feed: {retain_events: 2}']);
    let daemon = await startDaemon(dir, yaml);
    const client = new DaemonClient({ url: daemon.url });
    await client.send('one');
    await client.send('two');
    // Retention runs at start: the restarted daemon keeps only the newest two events.
    await daemon.stop();
    daemon = await startDaemon(dir, yaml);
    try {
      let reloads = 0;
      const seen: FeedMessage[] = [];
      const stop = new AbortController();
      const following = client.feed(
        { onEvent: (e) => seen.push(e), onReload: () => reloads++ },
        { since: 1, signal: stop.signal },
      );
      await waitUntil(() => seen.length === 2, 10_000, 'the two retained events arrive');
      stop.abort();
      await following;
      assert.equal(reloads, 1);
      assert.ok(seen[0]!.seq > 2, `seq ${seen[0]!.seq} follows what retention dropped`);
      // A cursor inside the retained range replays without a reload (the premise of the check above).
      let quiet = 0;
      const again = new AbortController();
      const last = seen[0]!.seq;
      const replay: FeedMessage[] = [];
      const second = client.feed(
        { onEvent: (e) => replay.push(e), onReload: () => quiet++ },
        { since: last, signal: again.signal },
      );
      await waitUntil(() => replay.length === 1, 10_000, 'the event after the cursor arrives');
      again.abort();
      await second;
      assert.equal(quiet, 0);
    } finally {
      await daemon.stop();
    }
  });

  it('shows a user only its own conversations', async () => {
    const dir = tempStateDir();
    const port = await freePort();
    const tokens = {
      ALICE_TOKEN: 'alice-token-0123456789abcdef012345678',
      OPERATOR_TOKEN: 'op-token-0123456789abcdef0123456789',
    };
    const principals = [
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
    ];
    const daemon = await startDaemon(dir, config(port, model.url, principals), tokens);
    try {
      const operator = new DaemonClient({ url: daemon.url, token: tokens.OPERATOR_TOKEN });
      const alice = new DaemonClient({ url: daemon.url, token: tokens.ALICE_TOKEN });
      await operator.send('from the operator');
      await alice.send('from alice');
      // The operator's pause reaches everyone as flags; its full status (turns, queues) only operators.
      await operator.command('pause');
      await operator.command('resume');
      const states: Record<string, FeedMessage[]> = {};
      const read = async (c: DaemonClient, who: string) => {
        const seen: FeedMessage[] = [];
        const stop = new AbortController();
        const f = c.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
        await waitUntil(() => seen.some((e) => e.data['op'] === 'resume'), 10_000, 'the resume arrives');
        await new Promise((r) => setTimeout(r, 300));
        stop.abort();
        await f;
        states[who] = seen.filter((e) => e.kind === 'state');
        return seen.filter((e) => e.kind === 'message' && e.data['role'] === 'user').map((e) => e.data['text']);
      };
      assert.deepEqual(await read(operator, 'root'), ['from the operator', 'from alice']);
      assert.deepEqual(await read(alice, 'alice'), ['from alice']);
      assert.deepEqual(
        states['alice']?.map((e) => e.data),
        [
          { op: 'pause', paused: true, draining: false },
          { op: 'resume', paused: false, draining: false },
        ],
      );
      // Premise: the operator's view carries more than the flags (before the fix everyone got this one).
      const full = states['root']?.filter((e) => Object.keys(e.data).length > 3) ?? [];
      assert.equal(full.length, 2);
      const anonymous = new DaemonClient({ url: daemon.url });
      await assert.rejects(
        anonymous.feed({ onEvent: () => {} }, { signal: new AbortController().signal }),
        /HTTP 401 authentication required/,
      );
    } finally {
      await daemon.stop();
    }
  });
});
