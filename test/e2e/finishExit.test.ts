// `finish {exit: true}` in a daemon (issue 13 item 13, reference §14.2 step 7): the built binary logs `root.finish
// {exit: true}`, drains (`drain.start {reason: "exit"}`) and exits with the code the finish status maps to.
// Premise: the same operator finish without `exit` leaves the daemon serving, as does a user's exit (refused,
// `finish.exit {refused}`); so `exit: true` from the operator is what stops it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { bearerFetch, clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { asTask, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const finishing = (marker: string, status: string) => ({
  when_contains: marker,
  times: 1,
  tool_calls: [{ name: 'finish', arguments: { status, output: 'bye', exit: true } }],
});

describe('finish {exit: true} in a daemon', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'still here' }],
      match: [
        finishing('alice wants out', 'completed'),
        finishing('operator wants out', 'refused'),
        {
          when_contains: 'operator is done',
          times: 1,
          tool_calls: [{ name: 'finish', arguments: { status: 'refused', output: 'done' } }],
        },
      ],
    });
  });
  after(() => model.close());

  it("a user's exit is refused and the daemon serves on; the operator's drains it and exits 5 (refused)", async () => {
    const yaml =
      'a2a:\n  listen: http://127.0.0.1:0\n  principals:\n' +
      '    - {id: ops, role: operator, match: {bearer: "{{secret:OPS_TOKEN}}"}}\n' +
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}\n' +
      `intelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(tempStateDir(), yaml, {
      OPS_TOKEN: 'ops-token-1234-abcd',
      ALICE_TOKEN: 'alice-tok-5678-abcd',
    });
    const exited = new Promise<number | null>((resolve) => daemon.child.on('exit', (code) => resolve(code)));
    try {
      const alice = await clientFor(daemon.url, bearerFetch('alice-tok-5678-abcd'));
      const hers = asTask(await within(alice.sendMessage(send('alice wants out', { contextId: 'a' })), 20_000, 'a'));
      assert.equal(hers.status?.state, TaskState.TASK_STATE_COMPLETED);
      await waitUntil(() => daemon.events.some((e) => e.event === 'finish.exit'), 10_000, 'the ask is judged');
      assert.match(String(daemon.events.find((e) => e.event === 'finish.exit')?.refused), /user:alice/);
      // Premise: the daemon still serves after a finish with exit: true.
      const next = asTask(await within(alice.sendMessage(send('hello again', { contextId: 'b' })), 20_000, 'b'));
      assert.equal(next.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(daemon.child.exitCode, null);

      const ops = await clientFor(daemon.url, bearerFetch('ops-token-1234-abcd'));
      const done = asTask(await within(ops.sendMessage(send('operator is done', { contextId: 'd' })), 20_000, 'd'));
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      const plain = daemon.events.find((e) => e.event === 'root.finish' && e.ctx === 'd');
      assert.deepEqual([plain?.status, plain?.exit, plain?.job_shape], ['refused', false, false]);
      assert.equal(daemon.child.exitCode, null, 'premise: a finish without exit leaves the daemon serving');

      const theirs = asTask(await within(ops.sendMessage(send('operator wants out', { contextId: 'c' })), 20_000, 'c'));
      assert.equal(theirs.status?.state, TaskState.TASK_STATE_COMPLETED, 'the turn itself completed');
      assert.equal(await within(exited, 30_000, 'the daemon exits by itself'), 5);
      const asked = daemon.events.findIndex((e) => e.event === 'root.finish' && e.ctx === 'c');
      assert.equal(daemon.events[asked]?.exit, true);
      const drained = daemon.events.findIndex((e) => e.event === 'drain.start' && e.reason === 'exit');
      assert.ok(asked >= 0 && drained > asked, 'the exit drained, with the reference event names');
    } finally {
      if (daemon.child.exitCode === null) await daemon.stop();
    }
  });
});
