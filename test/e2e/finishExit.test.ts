// `finish {exit: true}` in a daemon (issue 13 item 13, reference §14.2 step 7): the built binary drains and exits
// with the code the finish status maps to. Premise: a finish with exit from a user's turn leaves the daemon serving
// (it is refused, `finish.exit {refused}`), which is what every finish did before.
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
      match: [finishing('alice wants out', 'completed'), finishing('operator wants out', 'refused')],
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
      OPS_TOKEN: 'ops-token-1234',
      ALICE_TOKEN: 'alice-tok-5678',
    });
    const exited = new Promise<number | null>((resolve) => daemon.child.on('exit', (code) => resolve(code)));
    try {
      const alice = await clientFor(daemon.url, bearerFetch('alice-tok-5678'));
      const hers = asTask(await within(alice.sendMessage(send('alice wants out', { contextId: 'a' })), 20_000, 'a'));
      assert.equal(hers.status?.state, TaskState.TASK_STATE_COMPLETED);
      await waitUntil(() => daemon.events.some((e) => e.event === 'finish.exit'), 10_000, 'the ask is judged');
      assert.match(String(daemon.events.find((e) => e.event === 'finish.exit')?.refused), /user:alice/);
      // Premise: the daemon still serves after a finish with exit: true.
      const next = asTask(await within(alice.sendMessage(send('hello again', { contextId: 'b' })), 20_000, 'b'));
      assert.equal(next.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(daemon.child.exitCode, null);

      const ops = await clientFor(daemon.url, bearerFetch('ops-token-1234'));
      const theirs = asTask(await within(ops.sendMessage(send('operator wants out', { contextId: 'c' })), 20_000, 'c'));
      assert.equal(theirs.status?.state, TaskState.TASK_STATE_COMPLETED, 'the turn itself completed');
      assert.equal(await within(exited, 30_000, 'the daemon exits by itself'), 5);
      const names = daemon.events.map((e) => e.event);
      assert.ok(names.indexOf('finish.exit') < names.lastIndexOf('drain.start'), 'the exit drained');
      assert.equal(daemon.events.filter((e) => e.event === 'finish.exit' && e.status === 'refused').length, 1);
    } finally {
      if (daemon.child.exitCode === null) await daemon.stop();
    }
  });
});
