// The child watchdog with real processes (reference §1.6): a stopped spare is replaced and never runs a turn; a
// worker stopped mid-turn, or wedged between calls, fails its turn and frees its conversation; a worker inside a
// long call is left alone until its deadline plus the grace. Timeouts are lowered by config so each case takes
// seconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { WorkerEntry } from '../../src/supervisor/workerHandle.js';
import { answer, startRig } from './harness.js';
import { processGone, waitUntil, within } from './wait.js';

const OP = 'operator';
/** Pinged every 500 ms; silent for 1.5 s ⇒ stuck; no progress for 1.5 s outside a long call ⇒ no_progress. */
const FAST = { AGENTD_LIFECYCLE_PONG_TIMEOUT: '1500ms', AGENTD_LIFECYCLE_PROGRESS_TIMEOUT: '1500ms' };
/** The watchdog as good as absent: nothing is judged for an hour. */
const SLOW = { AGENTD_LIFECYCLE_PONG_TIMEOUT: '1h', AGENTD_LIFECYCLE_PROGRESS_TIMEOUT: '1h' };

const double = (mode: 'wedged' | 'busy'): WorkerEntry => ({
  execPath: process.execPath,
  args: [fileURLToPath(new URL('../doubles/wedgedWorker.js', import.meta.url)), mode],
});

describe('liveness: spares', () => {
  it('a SIGSTOPped spare is reported, killed and replaced, and the next turn runs on another worker', async () => {
    const rig = await startRig({ turns: [{ content: 'fresh answer' }] }, FAST);
    try {
      await waitUntil(() => rig.sup.warmWorkerPids.length === 1, 10_000, 'a spare worker is started');
      const [stopped] = rig.sup.warmWorkerPids as [number];
      process.kill(stopped, 'SIGSTOP');
      await waitUntil(
        () => rig.named('child.unhealthy').some((e) => e.worker_pid === stopped),
        10_000,
        'the stopped spare is found unhealthy',
      );
      const report = rig.named('child.unhealthy').find((e) => e.worker_pid === stopped);
      assert.equal(report?.kind, 'spare');
      assert.equal(report?.health, 'stuck');
      await waitUntil(() => processGone(stopped), 10_000, 'the stopped spare is killed');
      await waitUntil(
        () => rig.sup.warmWorkerPids.length === 1 && rig.sup.warmWorkerPids[0] !== stopped,
        10_000,
        'a new spare replaces it',
      );
      const outcome = await answer(rig, 'sp', 'hello');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'fresh answer');
      assert.notEqual(rig.named('turn.spawn')[0]?.worker_pid, stopped);
    } finally {
      await rig.close();
    }
  });

  it('premise: without the watchdog a stopped spare is handed the next turn, which then hangs', async () => {
    const rig = await startRig({ turns: [{ content: 'late answer' }] }, SLOW);
    try {
      await waitUntil(() => rig.sup.warmWorkerPids.length === 1, 10_000, 'a spare worker is started');
      const [stopped] = rig.sup.warmWorkerPids as [number];
      process.kill(stopped, 'SIGSTOP');
      const ev = (await rig.sup.accept({ context_id: 'sp', text: 'hello', principal: OP })).record;
      assert.ok(ev);
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the turn starts');
      assert.equal(rig.named('turn.spawn')[0]?.worker_pid, stopped, 'the stopped spare took the turn');
      await new Promise((r) => setTimeout(r, 3_000)); // twice the pong timeout the case above runs with
      assert.equal(rig.sup.status().running_turns, 1, 'the turn is still held by the stopped worker');
      process.kill(stopped, 'SIGCONT');
      assert.equal((await within(rig.sup.outcomeOf(ev.id), 10_000, 'the resumed turn')).status, 'completed');
    } finally {
      await rig.close();
    }
  });
});

describe('liveness: running turns', () => {
  it('a worker stopped mid-turn fails its turn as stuck, and the conversation’s next message runs', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'second answer' }],
        match: [{ when_contains: 'hang here', content: 'never', delay_ms: 60_000, times: 1 }],
      },
      FAST,
    );
    try {
      const first = (await rig.sup.accept({ context_id: 'c1', text: 'hang here', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c1', text: 'then this', principal: OP })).record;
      assert.ok(first && second);
      await waitUntil(() => rig.model.requests.length > 0, 10_000, 'the first turn calls the model');
      const pid = Number(rig.named('turn.spawn')[0]?.worker_pid);
      process.kill(pid, 'SIGSTOP');
      const o1 = await within(rig.sup.outcomeOf(first.id), 10_000, 'the stopped turn fails');
      assert.equal(o1.status, 'failed');
      assert.match(o1.error ?? '', /worker unhealthy \(stuck\): no answer to pings/);
      const report = rig.named('child.unhealthy').find((e) => e.worker_pid === pid);
      assert.equal(report?.kind, 'turn');
      assert.equal(report?.health, 'stuck');
      const o2 = await within(rig.sup.outcomeOf(second.id), 10_000, 'the next message');
      assert.equal(o2.status, 'completed');
      assert.equal(o2.reply, 'second answer');
      await waitUntil(() => processGone(pid), 10_000, 'the stopped worker is killed');
    } finally {
      await rig.close();
    }
  });

  it('a worker that answers pings but makes no progress between calls fails its turn as no_progress', async () => {
    const rig = await startRig({ turns: [{ content: 'unused' }] }, FAST, { workerEntry: double('wedged') });
    try {
      const outcome = await answer(rig, 'w', 'hello');
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.error ?? '', /worker unhealthy \(no_progress\): no progress for/);
      assert.equal(rig.named('child.unhealthy').find((e) => e.kind === 'turn')?.health, 'no_progress');
      // The one usage rule: what the killed worker reported was charged when it reported it.
      const metrics = await rig.sup.metrics.render();
      assert.match(metrics, /agentd_tokens_total\{direction="in",kind="turn"\} 7\b/);
      assert.match(metrics, /agentd_tokens_total\{direction="out",kind="turn"\} 3\b/);
    } finally {
      await rig.close();
    }
  });

  it('a stopped think child (preflight) fails as stuck and the message still runs, with no verdict', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'answered anyway' }],
        match: [{ when_contains: 'PREFLIGHT.', content: 'never', delay_ms: 60_000, times: 1 }],
      },
      { ...FAST, AGENTD_AGENT_PREFLIGHT: 'always' },
    );
    try {
      const ev = (await rig.sup.accept({ context_id: 'p', text: 'what now?', principal: OP })).record;
      assert.ok(ev);
      await waitUntil(() => rig.model.requests.length > 0, 10_000, 'the preflight calls the model');
      const pid = Number(rig.named('think.spawn')[0]?.worker_pid);
      process.kill(pid, 'SIGSTOP');
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the message after its preflight');
      assert.equal(outcome.reply, 'answered anyway');
      const report = rig.named('child.unhealthy').find((e) => e.worker_pid === pid);
      assert.equal(report?.kind, 'preflight');
      assert.equal(report?.health, 'stuck');
      assert.match(String(rig.named('preflight.failed')[0]?.err), /preflight: worker unhealthy \(stuck\)/);
      assert.equal(rig.named('preflight.verdict').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('a worker inside a long call (its pongs say so) outlives the progress timeout untouched', async () => {
    const rig = await startRig({ turns: [{ content: 'unused' }] }, FAST, { workerEntry: double('busy') });
    try {
      const ev = (await rig.sup.accept({ context_id: 'b', text: 'hello', principal: OP })).record;
      assert.ok(ev);
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the turn starts');
      await new Promise((r) => setTimeout(r, 4_500)); // three progress timeouts
      assert.equal(rig.named('child.unhealthy').filter((e) => e.kind === 'turn').length, 0);
      assert.equal(rig.sup.status().running_turns, 1);
      assert.ok(rig.sup.cancel('b'));
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the cancelled turn');
      assert.equal(outcome.status, 'cancelled');
    } finally {
      await rig.close();
    }
  });

  it('a worker that outlives its deadline by the grace is killed: the turn ends deadline', async () => {
    const env = { ...FAST, AGENTD_LIMITS_RUN_DEADLINE: '1s' };
    const rig = await startRig({ turns: [{ content: 'unused' }] }, env, { workerEntry: double('busy') });
    try {
      const started = Date.now();
      const outcome = await answer(rig, 'd', 'hello');
      assert.equal(outcome.status, 'deadline');
      assert.equal(outcome.error, 'the worker outlived its deadline');
      assert.ok(Date.now() - started >= 6_000, 'not before the deadline plus its 5 s grace');
      assert.equal(rig.named('child.unhealthy').find((e) => e.kind === 'turn')?.health, 'deadline_exceeded');
    } finally {
      await rig.close();
    }
  });
});
