// Wake notes with real workers: a message.send run that fails leaves a [note] in the sender's conversation; a
// successful one leaves nothing by default, and with on_workflow_finished: think starts a turn there at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Msg } from '../../src/protocol/messages.js';
import type { Playbook } from '../doubles/scriptedModel.js';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';

const playbook: Playbook = {
  turns: [{ content: 'ok' }],
  match: [
    {
      when_contains: 'delegate a doomed one',
      times: 1,
      tool_calls: [{ name: 'message.send', arguments: { to: 'worker', text: 'doomed job' } }],
    },
    // The sender's own follow-up also holds "doomed job" (in its call's arguments): it answers before that rule.
    { when_contains: 'delegate a doomed one', content: 'sent' },
    { when_contains: 'doomed job', http_status: 400 },
    {
      when_contains: 'delegate a good one',
      times: 1,
      tool_calls: [{ name: 'message.send', arguments: { to: 'helper', text: 'fine job' } }],
    },
  ],
};

/** Notes other than the daily date note every turn's conversation gets. */
const notes = (messages: readonly Msg[] | undefined): string[] =>
  (messages ?? []).flatMap((m) => (m.role === 'note' && !m.text.startsWith('current date:') ? [m.text] : []));

describe('wake notes', () => {
  it('a failed message.send run leaves a note in the sender; a completed one leaves none (defaults)', async () => {
    const rig = await startRig(playbook);
    try {
      const bad = (await rig.sup.accept({ context_id: 'boss', text: 'delegate a doomed one', principal: OP })).record;
      assert.ok(bad);
      await within(rig.sup.outcomeOf(bad.id), 20_000, 'the sender turn');
      await within(rig.sup.whenIdle(), 30_000, 'the delivered turn');
      const worker = rig.sup.conversation('worker')?.messages ?? [];
      assert.ok(
        worker.some((m) => m.role === 'note' && /failed/.test(m.text)),
        'premise: the delivered turn failed',
      );
      const [note] = notes(rig.sup.conversation('boss')?.messages);
      assert.match(note ?? '', /^run in worker failed: /);
      assert.equal(rig.named('wake.note').length, 1);
      // Durable: the store holds the note, not only memory.
      const stored = (await rig.store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'boss');
      assert.equal(notes(stored?.messages).length, 1);

      // Another sender: the failed run's text in boss's history would match the failing rule again.
      const good = (await rig.sup.accept({ context_id: 'boss2', text: 'delegate a good one', principal: OP })).record;
      assert.ok(good);
      await within(rig.sup.outcomeOf(good.id), 20_000, 'the sender turn');
      await within(rig.sup.whenIdle(), 30_000, 'the delivered turn');
      assert.equal(rig.sup.conversation('helper')?.messages.at(-1)?.role, 'assistant', 'premise: it completed');
      assert.equal(notes(rig.sup.conversation('boss2')?.messages).length, 0, 'no note for a completed run');
      assert.equal(rig.named('wake.note').length, 1);
    } finally {
      await rig.close();
    }
  });

  it('on_workflow_finished: think starts a turn in the sender with the note as its message', async () => {
    const rig = await startRig(playbook, { AGENTD_AGENT_ON_WORKFLOW_FINISHED: 'think' });
    try {
      const ev = (await rig.sup.accept({ context_id: 'boss', text: 'delegate a good one', principal: OP })).record;
      assert.ok(ev);
      await within(rig.sup.outcomeOf(ev.id), 20_000, 'the sender turn');
      const woke = () =>
        (rig.sup.conversation('boss')?.messages ?? []).some(
          (m) => m.role === 'user' && m.text.startsWith('run in helper completed: ok'),
        );
      await waitUntil(woke, 30_000, 'the sender is woken with a turn');
      await within(rig.sup.whenIdle(), 30_000, 'the wake turn');
      const boss = rig.sup.conversation('boss')?.messages ?? [];
      assert.equal(boss.at(-1)?.role, 'assistant', 'the wake turn answered');
      assert.equal(notes(boss).length, 0);
    } finally {
      await rig.close();
    }
  });
});
