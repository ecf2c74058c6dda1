// `message.send` and the `message` step reach a run waiting with `wait on: message` (turn reference §3.2-3.3,
// producers reference §2.8): the delivery is held on the waiting run instead of starting a turn, the sender's
// receipt says where it went, and a replayed step's keyed delivery (the deliver port called again with its
// dedupe key) reaches a wait or a turn once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeliveryRequest } from '../../../src/tools/toolOutcome.js';
import type { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import { type Rig, startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const YAML = `workflows:
  - name: waiter
    steps:
      s: {kind: manual}
      x: {kind: wait, depends_on: s, on: message, conversation: inbox-c, timeout: 60s}
      y: {kind: a2a.wait, depends_on: x, conversation: inbox-c, timeout: 60s}
      f: {kind: finish, depends_on: y, output: {first: "{{steps.x.output}}", second: "{{steps.y.output.message.text}}"}}
  - name: sender
    steps:
      s: {kind: manual}
      tell: {kind: message, depends_on: s, to: inbox-c, text: "from a message step"}
      f: {kind: finish, depends_on: tell, output: "{{steps.tell.output}}"}
  - name: tooler
    steps:
      s: {kind: manual}
      tell: {kind: tool, depends_on: s, name: message.send, args: {to: inbox-c, text: "from a tool step"}}
      f: {kind: finish, depends_on: tell, output: "{{steps.tell.output}}"}
`;

/** Starts the `waiter` run and resolves once its first wait is armed. */
async function startWaiter(desk: WorkflowDesk, rig: Rig): Promise<{ run: { id: string } }> {
  const got = await desk.start({ workflow: 'waiter', inputs: {}, startKey: 'w', principal: null, conversation: null });
  assert.ok(got.ok, got.ok ? '' : got.error);
  await waitUntil(() => rig.named('wait.armed').length === 1, 10_000, 'the first wait armed');
  return got;
}

describe('message.send deliveries and waiting steps', () => {
  it('a message step and a message.send tool step each end a wait on their conversation; no turn runs', async () => {
    const rig = await startRig({ turns: [{ content: 'a turn' }] }, {}, { a2aStarts: true, yaml: YAML });
    try {
      const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
      assert.ok(desk, 'the workflow desk is plugged');
      const start = async (workflow: string): Promise<string> => {
        const got = await desk.start({ workflow, inputs: {}, startKey: workflow, principal: null, conversation: null });
        assert.ok(got.ok, got.ok ? '' : got.error);
        return got.run.id;
      };
      const waiter = await start('waiter');
      await waitUntil(() => rig.named('wait.armed').length === 1, 10_000, 'the first wait armed');
      const sent = await desk.wait(await start('sender'), 10_000);
      assert.equal(sent?.status, 'completed', String(sent?.error));
      assert.deepEqual(sent?.output, { delivered: true, conversation: 'inbox-c', depth: 1 });
      await waitUntil(() => rig.named('wait.armed').length === 2, 10_000, 'the second wait armed');
      const told = await desk.wait(await start('tooler'), 10_000);
      assert.equal(told?.status, 'completed', String(told?.error));
      const run = await desk.wait(waiter, 10_000);
      assert.equal(run?.status, 'completed', String(run?.error));
      const out = run?.output as { first: Record<string, unknown>; second: string };
      assert.equal(out.second, 'from a tool step');
      assert.equal((out.first['message'] as { text: string }).text, 'from a message step');
      assert.equal(out.first['conversation'], 'inbox-c');
      assert.equal(out.first['principal'], null);
      assert.equal(rig.named('message.wait.taken').length, 2);
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.named('turn.spawn').length, 0, 'no turn ran either message');
      assert.equal(rig.sup.conversation('inbox-c')?.messages.length ?? 0, 0);
    } finally {
      await rig.close();
    }
  });

  it('a replayed keyed delivery is delivered once, whether a wait or a turn took it first', async () => {
    const rig = await startRig({ turns: [{ content: 'a turn' }] }, {}, { a2aStarts: true, yaml: YAML });
    try {
      const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
      const deliver = rig.ports.port('deliver');
      assert.ok(desk && deliver, 'the workflow desk and the deliver port are plugged');
      const caller = { conversation: 'talk', principal: null, turnId: 't', depth: 0, kind: 'conversation' } as const;
      const send = (text: string, dedupe: string): ReturnType<typeof deliver> =>
        deliver({ to: 'inbox-c', text, depth: 1, caller, dedupe } satisfies DeliveryRequest);
      // Taken as a turn (nothing waits yet), then replayed while a wait is armed: the wait does not take it.
      assert.ok((await send('to a turn', 'step:k0')).ok);
      await waitUntil(() => rig.named('turn.spawn').length === 1, 20_000, 'the first delivery ran as a turn');
      const got = await startWaiter(desk, rig);
      assert.ok((await send('to a turn', 'step:k0')).ok, 'the replay answers as the first did');
      assert.equal(rig.named('message.wait.taken').length, 0, "the replay of a turn's delivery is not taken");
      // Taken by a wait, then replayed: the run's second wait (y) does not take the replay, nor does a turn run it.
      assert.ok((await send('to the wait', 'step:k1')).ok);
      await waitUntil(() => rig.named('wait.armed').length === 2, 10_000, 'the first wait took the message');
      assert.ok((await send('to the wait', 'step:k1')).ok, 'the replay answers as the first did');
      assert.equal(rig.named('message.wait.taken').length, 1, 'the replay was not offered to the second wait');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.named('turn.spawn').length, 1, 'no turn ran a replay');
      await desk.engine.cancel(got.run.id, 'test over');
    } finally {
      await rig.close();
    }
  });

  it("a turn's message.send tool call ends a wait; the turn's tool result is the delivery receipt", async () => {
    const playbook = {
      turns: [{ content: 'told' }],
      match: [
        {
          when_contains: 'Tell the waiter',
          times: 1,
          tool_calls: [{ name: 'message.send', arguments: { to: 'inbox-c', text: 'from a turn' } }],
        },
      ],
    };
    const rig = await startRig(playbook, {}, { a2aStarts: true, yaml: YAML });
    try {
      const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
      assert.ok(desk, 'the workflow desk is plugged');
      const got = await startWaiter(desk, rig);
      await rig.sup.accept({ context_id: 'talk', text: 'Tell the waiter', principal: 'operator' });
      await waitUntil(() => rig.named('wait.armed').length === 2, 20_000, 'the first wait took the message');
      const taken = rig.named('message.wait.taken')[0];
      assert.equal(taken?.['from'], 'talk');
      assert.equal(taken?.['principal'], 'operator');
      await waitUntil(() => rig.model.requests.length === 2, 20_000, 'the turn asked again with the tool result');
      const receipt = JSON.stringify(rig.model.requests[1]?.body);
      assert.match(receipt, /\\"delivered\\":true/, 'the tool result is the receipt');
      assert.equal(rig.sup.conversation('inbox-c')?.messages.length ?? 0, 0, 'no turn on the waited conversation');
      await desk.engine.cancel(got.run.id, 'test over');
    } finally {
      await rig.close();
    }
  });
});
