// CancelTask and quotas on a task an `a2a` start made (producers reference §3.7 step 2, §3.9), over real HTTP with
// the official A2A client: the cancel reaches the run (it ends cancelled and the task CANCELED, from the run's end),
// and the caller's quotas refuse a start as they refuse a new message, before any run starts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { RPC_CODES } from '../../../src/a2a/rpcError.js';
import { asTask } from '../../e2e/daemon.js';
import { clientFor } from '../a2a/listenerHarness.js';
import { waitUntil, within } from '../wait.js';
import { commandRequest, daemon, doneOf, post, runsOf } from './startRig.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const freshDir = () => {
  dirs.push(mkdtempSync(join(tmpdir(), 'agentd-a2acancel-')));
  return dirs[dirs.length - 1] ?? '';
};

describe('a2a start: CancelTask', () => {
  it('cancels the live run, and the task ends CANCELED from the run', async () => {
    const yaml = `workflows:
  - name: holder
    steps:
      s: {kind: a2a, command: hold, roles: [operator]}
      w: {kind: wait, depends_on: [s], on: signal, signal: go}
      f: {kind: finish, depends_on: [w], output: done}
`;
    const { runtime, url, events } = await daemon(freshDir(), yaml);
    try {
      const client = await clientFor(url);
      const task = asTask(await client.sendMessage(commandRequest('hold', {}, 'hold-1', true)));
      await waitUntil(() => events.some((e) => e['event'] === 'wait.armed'), 10_000, 'the run waits');
      const [started] = runsOf(events, 'holder');
      const run = String(started?.['run']);
      assert.equal((await runtime.store.workflows.getRun(run))?.status, 'running', 'premise: the run was live');
      const canceled = await within(
        client.cancelTask({ tenant: '', id: task.id, metadata: undefined }),
        10_000,
        'CancelTask answers',
      );
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      // Before the fix the task was canceled alone and the run kept waiting for its signal.
      await waitUntil(() => doneOf(events, 'holder').length === 1, 10_000, 'the run ended');
      assert.equal((await runtime.store.workflows.getRun(run))?.status, 'cancelled');
      assert.equal((await runtime.store.tasks.get(task.id))?.run, run, 'the task names its run');
    } finally {
      await runtime.stop();
    }
  });
});

describe('a2a start: quotas', () => {
  it("a start past the caller's message_bytes is refused like a message, and starts no run", async () => {
    const yaml = `a2a:
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}, quotas: {message_bytes: 16}}
workflows:
  - name: chat
    steps:
      s: {kind: a2a}
      f: {kind: finish, depends_on: [s], output: ok}
`;
    const { runtime, url, events } = await daemon(freshDir(), yaml, { ALICE_TOKEN: 'alice-token-1234-abcd' });
    const auth = { Authorization: 'Bearer alice-token-1234-abcd', 'A2A-Version': '1.0' };
    const sendText = async (text: string, messageId: string) => {
      const message = { messageId, contextId: 'c1', role: 'ROLE_USER', parts: [{ text }] };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
      return (await (await post(url, body, auth)).json()) as { result?: unknown; error?: { code: number } };
    };
    try {
      const small = await sendText('hi', 'm-small');
      assert.equal(small.error, undefined, 'premise: a message within the quota starts a run');
      await waitUntil(() => runsOf(events, 'chat').length === 1, 10_000, 'the run started');
      // Before the fix the start ran before admission, so this one started a second run.
      const big = await sendText('x'.repeat(100), 'm-big');
      assert.equal(big.error?.code, RPC_CODES.quota_exceeded);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(runsOf(events, 'chat').length, 1, 'the refused message started no run');
    } finally {
      await runtime.stop();
    }
  });
});
