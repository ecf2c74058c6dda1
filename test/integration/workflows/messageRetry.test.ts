// A retried A2A message (same messageId) reaches a waiting workflow step at most once and never a turn as well
// (producers reference §3.7; interfaces §4.4): a retry while the first copy is still held is taken (the same task),
// and a retry of a message that went to a turn before the wait armed gets that turn's task.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import type { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import { startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const ALICE: Principal = { id: 'user:alice', role: 'user', grants: [] };
const YAML = `workflows:
  - name: w
    steps:
      s: {kind: manual}
      x: {kind: wait, depends_on: s, on: message, conversation: c, timeout: 60s}
      f: {kind: finish, depends_on: x, output: "{{steps.x.output.message.text}}"}
`;

async function armedRun(rig: Awaited<ReturnType<typeof startRig>>): Promise<{ desk: WorkflowDesk; run: string }> {
  const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
  assert.ok(desk, 'the workflow desk is plugged');
  const got = await desk.start({ workflow: 'w', inputs: {}, startKey: 'k', principal: null, conversation: null });
  assert.ok(got.ok);
  await waitUntil(() => rig.named('wait.armed').length === 1, 10_000, 'the wait armed');
  return { desk, run: got.run.id };
}

describe('a retried message and a waiting step', () => {
  it('two copies sent at once: one task, one delivery, no turn', async () => {
    const rig = await startRig({ turns: [{ content: 'a turn' }] }, {}, { tasks: true, a2aStarts: true, yaml: YAML });
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const { desk, run } = await armedRun(rig);
      const req = { text: 'once', contextId: 'c', messageId: 'm-1' };
      const [a, b] = await Promise.all([backend.send(ALICE, req), backend.send(ALICE, req)]);
      assert.equal(b.id, a.id, 'the retry gets the first copy’s task');
      assert.equal((await desk.wait(run, 10_000))?.output, 'once');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.named('turn.spawn').length, 0, 'no turn ran the message');
      assert.equal(rig.named('inbox.accepted').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('a retry of a message a turn took before the wait armed gets that task; the wait takes the next one', async () => {
    const rig = await startRig({ turns: [{ content: 'a turn' }] }, {}, { tasks: true, a2aStarts: true, yaml: YAML });
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const first = await backend.send(ALICE, { text: 'early', contextId: 'c', messageId: 'm-1' });
      const { desk, run } = await armedRun(rig);
      const retry = await backend.send(ALICE, { text: 'early', contextId: 'c', messageId: 'm-1' });
      assert.equal(retry.id, first.id, 'the retry gets the turn’s task');
      const next = await backend.send(ALICE, { text: 'next', contextId: 'c', messageId: 'm-2' });
      assert.notEqual(next.id, first.id);
      assert.equal((await desk.wait(run, 10_000))?.output, 'next');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
    } finally {
      await rig.close();
    }
  });
});
