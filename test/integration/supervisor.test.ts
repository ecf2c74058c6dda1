// The supervisor in-process with real workers: parallelism, per-conversation order, a killed worker, cancel,
// and a suspending tool.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';

describe('Supervisor dispatch', () => {
  it('runs two conversations in parallel but never two turns of one conversation at once', async () => {
    const rig = await startRig({ turns: [{ content: 'ok', delay_ms: 400 }] });
    try {
      const a1 = (await rig.sup.accept({ context_id: 'a', text: 'first in a', principal: OP })).record;
      const a2 = (await rig.sup.accept({ context_id: 'a', text: 'second in a', principal: OP })).record;
      const b1 = (await rig.sup.accept({ context_id: 'b', text: 'first in b', principal: OP })).record;
      assert.ok(a1 && a2 && b1);
      await within(Promise.all([a1, a2, b1].map((e) => rig.sup.outcomeOf(e.id))), 20_000, 'three turns');
      const order = rig.events
        .filter((e) => e.event === 'turn.spawn' || e.event === 'turn.done')
        .map((e) => `${e.event}:${e.ctx}`);
      const firstDoneA = order.indexOf('turn.done:a');
      assert.ok(order.indexOf('turn.spawn:b') < firstDoneA, `b starts while a runs: ${order}`);
      assert.equal(order.filter((x) => x === 'turn.spawn:a').length, 2);
      assert.ok(order.lastIndexOf('turn.spawn:a') > firstDoneA, `a's second turn waits for its first: ${order}`);
      const texts = rig.sup
        .conversation('a')
        ?.messages.filter((m) => m.role === 'user')
        .map((m) => m.text);
      assert.deepEqual(texts, ['first in a', 'second in a']);
    } finally {
      await rig.close();
    }
  });

  it('a model error fails the turn with kind intel, stored with the outcome beside its unchanged text', async () => {
    const rig = await startRig({ turns: [{ http_status: 401, body: '{"error":{"message":"bad key"}}' }] });
    try {
      const event = (await rig.sup.accept({ context_id: 'c1', text: 'hello', principal: OP })).record;
      assert.ok(event);
      const outcome = await within(rig.sup.outcomeOf(event.id), 10_000, 'the outcome');
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.error ?? '', /^intel: HTTP 401/);
      assert.equal(outcome.error_kind, 'intel');
      assert.equal((await rig.store.inbox.find(event.id))?.outcome?.error_kind, 'intel');
    } finally {
      await rig.close();
    }
  });

  it('a launch step that throws fails its job, and the next message in that conversation runs', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] });
    try {
      // A bug or a store failing under the launch: the first admission throws.
      const launcher = (rig.sup as unknown as { launcher: { admit(job: unknown): unknown } }).launcher;
      const admit = launcher.admit.bind(launcher);
      let thrown = false;
      launcher.admit = (job) => {
        if (thrown) return admit(job);
        thrown = true;
        throw new Error('boom in admission');
      };
      const first = (await rig.sup.accept({ context_id: 'c1', text: 'first', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c1', text: 'second', principal: OP })).record;
      const o1 = await within(rig.sup.outcomeOf(first.id), 10_000, 'the first outcome');
      assert.equal(o1.status, 'failed');
      assert.equal(o1.error_kind, 'internal');
      assert.match(o1.error ?? '', /boom in admission/);
      const o2 = await within(rig.sup.outcomeOf(second.id), 10_000, 'the second outcome');
      assert.equal(o2.status, 'completed', 'the conversation was not left busy');
    } finally {
      await rig.close();
    }
  });

  it('a killed worker fails its turn, and the next message in that conversation runs', async () => {
    const rig = await startRig({
      turns: [{ content: 'second answer' }],
      match: [{ when_contains: 'hang here', content: 'never', delay_ms: 60_000, times: 1 }],
    });
    try {
      const first = (await rig.sup.accept({ context_id: 'c1', text: 'hang here', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c1', text: 'then this', principal: OP })).record;
      assert.ok(first && second);
      await waitUntil(() => rig.model.requests.length > 0, 10_000, 'the first turn calls the model');
      process.kill(Number(rig.named('turn.spawn')[0]?.worker_pid), 'SIGKILL');
      const o1 = await within(rig.sup.outcomeOf(first.id), 10_000, 'first outcome');
      assert.equal(o1.status, 'failed');
      assert.match(o1.error ?? '', /worker exited without a result/);
      assert.equal(o1.error_kind, 'worker');
      const o2 = await within(rig.sup.outcomeOf(second.id), 10_000, 'second outcome');
      assert.equal(o2.status, 'completed');
      assert.equal(o2.reply, 'second answer');
      const notes = rig.sup.conversation('c1')?.messages.flatMap((m) => (m.role === 'note' ? [m.text] : []));
      assert.match(notes?.[0] ?? '', /^current date: /);
      assert.match(notes?.[1] ?? '', /turn ended with status failed/);
    } finally {
      await rig.close();
    }
  });

  it('cancel ends a parked sleep promptly with status cancelled and a sealed transcript', async () => {
    const rig = await startRig({
      turns: [
        {
          tool_calls: [
            { name: 'sleep', arguments: { duration: '10m' } },
            { name: 'memory.list', arguments: {} },
          ],
        },
      ],
    });
    try {
      const ev = (await rig.sup.accept({ context_id: 's', text: 'sleep a long time', principal: OP })).record;
      assert.ok(ev);
      await waitUntil(() => rig.named('tool.request').length > 0, 10_000, 'the sleep is requested');
      assert.ok(rig.sup.cancel('s'));
      const outcome = await within(rig.sup.outcomeOf(ev.id), 5_000, 'cancel noticed');
      assert.equal(outcome.status, 'cancelled');
      const msgs = rig.sup.conversation('s')?.messages ?? [];
      const calls = msgs.flatMap((m) => (m.role === 'assistant' ? m.tool_calls.map((c) => c.id) : []));
      const results = msgs.flatMap((m) => (m.role === 'tool' ? [m.id] : []));
      assert.equal(calls.length, 2, 'premise: two calls were made');
      assert.deepEqual(results.sort(), calls.sort(), 'every tool call id has a result');
    } finally {
      await rig.close();
    }
  });

  it('a short sleep parks the turn and completes it', async () => {
    const rig = await startRig({
      turns: [{ tool_calls: [{ name: 'sleep', arguments: { duration: '200ms' } }] }, { content: 'rested' }],
    });
    try {
      const ev = (await rig.sup.accept({ context_id: 'z', text: 'take a nap', principal: OP })).record;
      assert.ok(ev);
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'sleep turn');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'rested');
      const tool = rig.sup.conversation('z')?.messages.find((m) => m.role === 'tool');
      assert.ok(tool?.role === 'tool' && !tool.is_error);
      assert.ok(((tool.content as { slept_ms: number }).slept_ms ?? 0) >= 200);
    } finally {
      await rig.close();
    }
  });
});

describe('Supervisor lifecycle', () => {
  it('a paused supervisor accepts but starts nothing until resumed', async () => {
    const rig = await startRig({ turns: [{ content: 'after resume' }] });
    try {
      rig.sup.pause();
      const ev = (await rig.sup.accept({ context_id: 'p', text: 'wait for it', principal: OP })).record;
      assert.ok(ev);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(rig.named('turn.spawn').length, 0, 'nothing starts while paused');
      rig.sup.resume();
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'resumed turn');
      assert.equal(outcome.reply, 'after resume');
      assert.equal(rig.named('turn.spawn').length, 1);
    } finally {
      await rig.close();
    }
  });

  it('a turn runs on the spare worker that was started before the message arrived', async () => {
    // One turn per process, so the spare that ran the turn exits and a new one takes its place (reuse: workerReuse).
    const rig = await startRig({ turns: [{ content: 'warm answer' }] }, { AGENTD_AGENT_WORKER_MAX_TURNS: '1' });
    try {
      await waitUntil(() => rig.sup.warmWorkerPids.length === 1, 10_000, 'a spare worker is started');
      const [sparePid] = rig.sup.warmWorkerPids;
      const ev = (await rig.sup.accept({ context_id: 'w', text: 'hello', principal: OP })).record;
      assert.ok(ev);
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'warm turn');
      assert.equal(outcome.reply, 'warm answer');
      assert.equal(rig.named('turn.spawn')[0]?.worker_pid, sparePid);
      await waitUntil(
        () => rig.sup.warmWorkerPids.length === 1 && rig.sup.warmWorkerPids[0] !== sparePid,
        10_000,
        'the pool is refilled with a new spare',
      );
    } finally {
      await rig.close();
    }
  });

  it('drain kills the spare workers', async () => {
    const rig = await startRig({ turns: [{ content: 'x' }] });
    await waitUntil(() => rig.sup.warmWorkerPids.length === 1, 10_000, 'a spare worker is started');
    const [pid] = rig.sup.warmWorkerPids;
    await rig.close();
    await waitUntil(
      () => {
        try {
          process.kill(Number(pid), 0);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
      'the spare exits',
    );
  });
});
