// Budgets with real workers and the scripted model: a window makes a second turn wait and then run, refuse
// rejects the task with a note, degrade runs the turn on the degrade model, counters survive a restart, and a
// killed worker's reported spend reaches the windows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IMPLICIT_OPERATOR } from '../../../src/a2a/principals.js';
import { answer, startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const OP = 'operator';

/** One turn's dispatch estimate is a few thousand tokens: the answer allowance, the system prompt, the tools shown. */
function budgetYaml(body: string): string {
  return `intelligence:\n  budget:\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
}

function usedTokens(rows: Array<{ scope: string; window: string; tokens: number }>, window: string): number {
  return rows.find((r) => r.scope === 'instance' && r.window === window)?.tokens ?? 0;
}

describe('budget admission', () => {
  it('a goal continuation waiting for the budget yields to a message that arrives meanwhile', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'ok' }],
        match: [{ when_contains: 'hold the window', content: 'held', delay_ms: 1_500 }],
      },
      {},
      { yaml: budgetYaml('windows: [{per: hour, tokens: 7000}]') },
    );
    try {
      await rig.sup.accept({ context_id: 'x', text: 'hold the window', principal: OP });
      await waitUntil(() => rig.named('turn.spawn').length === 1, 10_000, 'the window is held');
      rig.sup.steering.goalSet('g', OP, 'something', null);
      rig.sup.steering.kick('g');
      await waitUntil(() => rig.named('budget.wait').some((e) => e.ctx === 'g'), 10_000, 'premise: it waits');
      const message = (await rig.sup.accept({ context_id: 'g', text: 'a person writes', principal: OP })).record;
      await waitUntil(() => rig.named('turn.spawn').some((e) => e.ctx === 'g'), 20_000, 'a turn of g runs');
      const first = rig.named('turn.spawn').find((e) => e.ctx === 'g');
      assert.equal(first?.inbox_event, message.id, 'the message ran first, not the waiting continuation');
      const [dropped] = rig.named('goal.continuation.dropped');
      assert.equal(dropped?.reason, 'a message for the conversation goes first');
      rig.sup.steering.goalClear('g', OP);
      await within(rig.sup.whenIdle(), 20_000, 'idle');
    } finally {
      await rig.close();
    }
  });

  it('makes a second turn wait (budget.wait) while the first holds the window, then runs it', async () => {
    const rig = await startRig(
      { turns: [{ content: 'done', delay_ms: 300, usage: { prompt_tokens: 10, completion_tokens: 5 } }] },
      {},
      { yaml: budgetYaml('windows: [{per: hour, tokens: 7000}]') },
    );
    try {
      const first = (await rig.sup.accept({ context_id: 'c1', text: 'first', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'c2', text: 'second', principal: OP })).record;
      assert.ok(first && second);
      const outcomes = await within(
        Promise.all([rig.sup.outcomeOf(first.id), rig.sup.outcomeOf(second.id)]),
        30_000,
        'both turns',
      );
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['completed', 'completed'],
      );
      const waits = rig.named('budget.wait');
      assert.equal(waits.length, 1, 'the second turn waited once');
      assert.equal(waits[0]?.ctx, 'c2');
      assert.match(String(waits[0]?.reason), /^budget exhausted \(instance hour window\)$/);
      const spawns = rig.named('turn.spawn').map((e) => e.ctx);
      assert.deepEqual(spawns, ['c1', 'c2'], 'the waiting turn ran after the first');
      await rig.sup.whenIdle();
      assert.equal(usedTokens(await rig.store.budget.load(), 'hour'), 30, 'both settled with what they spent');
    } finally {
      await rig.close();
    }
  });

  it('refuse: the task is REJECTED, the transcript says "turn not run", no worker starts', async () => {
    const rig = await startRig(
      { turns: [{ content: 'never' }] },
      {},
      {
        yaml: budgetYaml('windows: [{per: hour, tokens: 1000}]\non_exhausted: refuse'),
        tasks: true,
      },
    );
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const task = await backend.send(IMPLICIT_OPERATOR, { text: 'please work' });
      const done = await within(
        backend.settled(IMPLICIT_OPERATOR, task.id, new AbortController().signal),
        30_000,
        'the task settles',
      );
      assert.equal(done?.state, 'rejected');
      assert.match(String(done?.message), /^budget: refused: budget exhausted \(instance hour window\)/);
      // The daily date note aside: the message, then the note that says why no turn ran.
      const conv = rig.sup.conversation(task.conversation);
      const messages = conv?.messages.filter((m) => m.role !== 'note' || !m.text.startsWith('current date:'));
      const last = messages?.at(-1);
      assert.equal(last?.role, 'note');
      assert.equal(
        last?.role === 'note' && last.text,
        'turn not run: refused: budget exhausted (instance hour window)',
      );
      assert.equal(messages?.at(-2)?.role, 'user', 'the message stays, followed by the note');
      assert.equal(rig.named('budget.refused').length, 1);
      assert.equal(rig.named('turn.spawn').length, 0);
      assert.equal(rig.model.requests.length, 0);
    } finally {
      await rig.close();
    }
  });

  it('degrade: an exhausted window admits the turn on the degrade model', async () => {
    const rig = await startRig(
      { turns: [{ content: 'cheap answer' }] },
      {},
      {
        yaml: budgetYaml('windows: [{per: hour, tokens: 1000}]\non_exhausted: degrade\ndegrade: {model: small-model}'),
      },
    );
    try {
      const outcome = await answer(rig, 'c1', 'hello');
      assert.equal(outcome.status, 'completed', outcome.error);
      assert.equal(outcome.reply, 'cheap answer');
      assert.deepEqual(
        rig.named('budget.degraded').map((e) => e.model),
        ['small-model'],
      );
      assert.ok(rig.model.requests.length > 0);
      for (const req of rig.model.requests) assert.equal((req.body as { model?: string }).model, 'small-model');
    } finally {
      await rig.close();
    }
  });

  it('keeps its counters across a restart inside the same window', async () => {
    const yaml = budgetYaml('windows: [{per: week, tokens: 12000}]\non_exhausted: refuse');
    const spend = { content: 'spent', usage: { prompt_tokens: 10_500, completion_tokens: 500 } };
    const rig = await startRig({ turns: [spend] }, {}, { yaml });
    assert.equal((await answer(rig, 'c1', 'spend')).status, 'completed');
    await rig.close();

    const again = await startRig({ turns: [spend] }, {}, { yaml, dir: rig.dir });
    try {
      assert.equal(usedTokens(await again.store.budget.load(), 'week@00:00'), 11_000, 'the premise: 11 000 stored');
      // 12 000 − 11 000 leaves less than a turn's estimate: refused only because the count survived.
      assert.equal((await answer(again, 'c2', 'spend more')).status, 'refused');
      assert.equal(again.model.requests.length, 0);
    } finally {
      await again.close();
    }
  });

  it('charges usage as its frames arrive, durably; a killed worker keeps what it reported', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'unreached' }],
        match: [
          {
            when_contains: 'nap now',
            times: 1,
            usage: { prompt_tokens: 3000, completion_tokens: 100 },
            tool_calls: [{ name: 'sleep', arguments: { duration: '60s' } }],
          },
        ],
      },
      {},
      { yaml: budgetYaml('windows: [{per: day, tokens: 100000}]') },
    );
    try {
      const ev = (await rig.sup.accept({ context_id: 'c1', text: 'nap now', principal: OP })).record;
      assert.ok(ev);
      await waitUntil(() => rig.named('tool.park').length > 0, 30_000, 'the turn parks in sleep');
      // Already on disk while the turn still runs: a supervisor that died now would not lose this spend.
      assert.equal(usedTokens(await rig.store.budget.load(), 'day@00:00'), 3100, 'charged as the frame arrived');
      const pid = Number(rig.named('turn.spawn')[0]?.worker_pid);
      assert.ok(pid > 0);
      process.kill(pid, 'SIGKILL');
      const outcome = await within(rig.sup.outcomeOf(ev.id), 30_000, 'the killed turn folds');
      assert.equal(outcome.status, 'failed');
      await rig.sup.whenIdle();
      assert.equal(usedTokens(await rig.store.budget.load(), 'day@00:00'), 3100);
    } finally {
      await rig.close();
    }
  });
});
