// Reused workers (issue 14): a worker process serves successive turns from fresh snapshots and keeps nothing of a
// conversation; a cancel still takes its process group (its stdio MCP server included) and the next turn gets a
// fresh worker; `agent.worker_max_turns` recycles, and 1 keeps one process per turn.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { type Rig, startRig } from './harness.js';
import { childrenOf, processGone, waitUntil, within } from './wait.js';

const OP = 'operator';
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

async function turn(rig: Rig, ctx: string, text: string): Promise<{ status: string; pid: number }> {
  const spawned = rig.named('turn.spawn').length;
  const ev = (await rig.sup.accept({ context_id: ctx, text, principal: OP })).record;
  const outcome = await within(rig.sup.outcomeOf(ev.id), 20_000, `the turn in ${ctx}`);
  return { status: outcome.status, pid: Number(rig.named('turn.spawn')[spawned]?.worker_pid) };
}

/** Waits until the worker `pid` went idle and is a spare again (its idle frame may come after the fold). */
async function backInPool(rig: Rig, pid: number): Promise<void> {
  await waitUntil(() => rig.sup.warmWorkerPids.includes(pid), 10_000, `worker ${pid} is back in the pool`);
}

describe('reused workers', () => {
  it('two turns of different conversations run in one process; the second sees nothing of the first', async () => {
    const rig = await startRig({ turns: [{ content: 'fine' }] });
    try {
      const first = await turn(rig, 'alpha', 'the alpha secret is marker-7731');
      await backInPool(rig, first.pid);
      const second = await turn(rig, 'beta', 'hello from beta');
      assert.equal(first.status, 'completed');
      assert.equal(second.status, 'completed');
      // Premise: the same process served both (without reuse the isolation below would hold trivially).
      assert.equal(second.pid, first.pid);
      assert.ok(rig.named('child.exit').some((e) => e.worker_pid === first.pid && e.idle === true));
      const [a, b] = rig.model.requests.map((r) => JSON.stringify(r.body));
      assert.match(String(a), /marker-7731/, 'the first turn carried its text to the model');
      assert.doesNotMatch(String(b), /marker-7731|alpha/, 'the second turn carries nothing of the first');
      assert.match(String(b), /hello from beta/);
    } finally {
      await rig.close();
    }
  });

  it('recycles a worker after agent.worker_max_turns turns', async () => {
    const rig = await startRig({ turns: [{ content: 'fine' }] }, { AGENTD_AGENT_WORKER_MAX_TURNS: '2' });
    try {
      const pids: number[] = [];
      pids.push((await turn(rig, 'r1', 'hi')).pid);
      await backInPool(rig, Number(pids[0]));
      for (const ctx of ['r2', 'r3']) pids.push((await turn(rig, ctx, 'hi')).pid);
      assert.equal(pids[1], pids[0], 'the second turn reuses the first worker');
      assert.notEqual(pids[2], pids[0], 'the third turn runs on another worker');
      await waitUntil(() => processGone(Number(pids[0])), 10_000, 'the recycled worker exits');
      // Its second turn was its last: it exited by itself after it, as a worker of one turn does.
      const exits = rig.named('child.exit').filter((e) => e.worker_pid === pids[0]);
      assert.deepEqual(
        exits.map((e) => [e.idle ?? false, e.code]),
        [
          [true, 0],
          [false, 0],
        ],
      );
    } finally {
      await rig.close();
    }
  });

  it('recycles a worker whose memory passed agent.worker_max_rss', async () => {
    const rig = await startRig({ turns: [{ content: 'fine' }] }, { AGENTD_AGENT_WORKER_MAX_RSS: '1MB' });
    try {
      const first = await turn(rig, 's1', 'hi');
      await waitUntil(() => processGone(first.pid), 10_000, 'the worker over its memory bound exits');
      const recycled = rig.named('worker.recycle').find((e) => e.worker_pid === first.pid);
      assert.match(String(recycled?.reason), /^rss \d+ MB over the bound$/);
      assert.notEqual((await turn(rig, 's2', 'hi')).pid, first.pid);
    } finally {
      await rig.close();
    }
  });

  it('a failed turn takes its worker with it; the next turn gets a fresh one', async () => {
    const rig = await startRig({
      match: [{ when_contains: 'doomed', http_status: 400, body: '{"error":{"message":"bad request"}}' }],
      turns: [{ content: 'fine' }],
    });
    try {
      const first = await turn(rig, 'f1', 'hi');
      await backInPool(rig, first.pid);
      // Premise: a completed turn's worker is reused, so the doomed turn below runs in that same process.
      const failed = await turn(rig, 'f2', 'a doomed request');
      assert.equal(failed.pid, first.pid);
      assert.equal(failed.status, 'failed');
      await waitUntil(() => processGone(failed.pid), 10_000, 'the failed turn’s worker exits');
      const next = await turn(rig, 'f3', 'hi');
      assert.equal(next.status, 'completed');
      assert.notEqual(next.pid, failed.pid);
      assert.equal(rig.named('child.exit').filter((e) => e.worker_pid === failed.pid && e.idle === true).length, 1);
    } finally {
      await rig.close();
    }
  });

  it('agent.worker_max_turns: 1 runs each turn in its own process', async () => {
    const rig = await startRig({ turns: [{ content: 'fine' }] }, { AGENTD_AGENT_WORKER_MAX_TURNS: '1' });
    try {
      const first = await turn(rig, 'o1', 'hi');
      await waitUntil(() => processGone(first.pid), 10_000, 'the first worker exits after its turn');
      const second = await turn(rig, 'o2', 'hi');
      assert.notEqual(second.pid, first.pid);
      assert.equal(rig.named('child.exit').filter((e) => e.idle === true).length, 0, 'no worker went idle');
    } finally {
      await rig.close();
    }
  });

  it('keeps its stdio MCP server between turns; a cancel kills both and the next turn gets a fresh worker', async () => {
    const playbook = {
      match: [{ when_contains: 'hang now', content: 'late', delay_ms: 60_000 }],
      turns: [{ tool_calls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { content: 'echoed' }],
    };
    const yaml = `mcp:\n  servers:\n    everything: {command: "${process.execPath}", args: ["${everything}", "stdio"]}\n`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      const first = await turn(rig, 'm1', 'call echo');
      assert.equal(first.status, 'completed');
      const servers = childrenOf(first.pid, 'server-everything');
      assert.equal(servers.length, 1, 'the worker started its stdio server and kept it after the turn');
      const server = Number(servers[0]);
      await backInPool(rig, first.pid);
      const ev = (await rig.sup.accept({ context_id: 'm2', text: 'hang now', principal: OP })).record;
      await waitUntil(() => rig.named('turn.spawn').length === 2, 10_000, 'the second turn starts');
      assert.equal(Number(rig.named('turn.spawn')[1]?.worker_pid), first.pid, 'the same worker runs it');
      await waitUntil(() => rig.model.requests.length === 3, 10_000, 'the second turn calls the model');
      assert.deepEqual(childrenOf(first.pid, 'server-everything'), [server], 'no second server was started');
      assert.ok(rig.sup.cancel('m2'));
      const outcome = await within(rig.sup.outcomeOf(ev.id), 20_000, 'the cancelled turn');
      assert.equal(outcome.status, 'cancelled');
      await waitUntil(() => processGone(first.pid) && processGone(server), 10_000, 'the worker and its server die');
      const third = await turn(rig, 'm3', 'call echo');
      assert.equal(third.status, 'completed');
      assert.notEqual(third.pid, first.pid, 'a fresh worker replaces it');
    } finally {
      await rig.close();
    }
  });
});
