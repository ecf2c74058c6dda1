// Secrets over real processes (issue 13 item 3): a model error body that echoes a principal's bearer token reaches
// neither the daemon's nor the worker's stderr, nor the A2A task status, nor any byte of the SQLite files.
// Without the spawn frame's `redact` list the worker does not know the principal's token, and the task status reads
// `invalid credential alice-bearer-… for this gateway` (the first token assertion fails).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { bearerFetch, clientFor } from '../integration/a2a/listenerHarness.js';
import { within } from '../integration/wait.js';
import { asTask, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const TOKEN = 'alice-bearer-4d1f9c2e';

/** Every byte of the store's files (the database, its WAL and journal, whatever is left). */
function storeBytes(dir: string): string {
  const files = readdirSync(dir).filter((name) => name.startsWith('agentd.db'));
  assert.ok(files.includes('agentd.db'), 'the daemon used a SQLite store');
  return files.map((name) => readFileSync(join(dir, name)).toString('latin1')).join('');
}

describe('one redactor for the supervisor and the worker', () => {
  let model: ScriptedModel;
  before(async () => {
    // The provider's error echoes the caller's token, as a misconfigured gateway would.
    const body = JSON.stringify({ error: { message: `invalid credential ${TOKEN} for this gateway` } });
    model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [{ when_contains: 'echo', http_status: 400, body }],
    });
  });
  after(() => model.close());

  it("a principal's token echoed by a model error is in no event line, task status or stored byte", async () => {
    const dir = tempStateDir();
    const yaml =
      'a2a:\n  listen: http://127.0.0.1:0\n  principals:\n' +
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}\n' +
      `intelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml, { ALICE_TOKEN: TOKEN });
    let code: number | null = null;
    try {
      const alice = await clientFor(daemon.url, bearerFetch(TOKEN));
      const task = asTask(await within(alice.sendMessage(send('echo my credential')), 30_000, 'the turn fails'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED);
      const status = JSON.stringify(task.status);
      // Premise: the error text did travel to the caller, with the token's place marked, not dropped.
      assert.match(status, /invalid credential \[redacted\] for this gateway/);
      assert.ok(!status.includes(TOKEN), 'the task status holds no token');
      const again = await alice.getTask({ tenant: '', id: task.id });
      assert.ok(!JSON.stringify(again).includes(TOKEN), 'nor the stored task read back');
      // The worker's own turn.done line carries the (redacted) error: the worker knew the principal's token.
      const workerDone = daemon.events.find((e) => e.event === 'turn.done' && e.comp === 'worker');
      assert.match(String(workerDone?.err ?? JSON.stringify(workerDone)), /\[redacted\]/);
    } finally {
      code = await daemon.stop();
    }
    assert.equal(code, 0);
    assert.ok(model.requests.length >= 1, 'the model was asked');
    assert.ok(!daemon.stderr().includes(TOKEN), 'no stderr line of either process holds the token');
    const bytes = storeBytes(dir);
    assert.ok(bytes.includes('[redacted] for this gateway'), 'premise: the error was stored (redacted)');
    assert.ok(!bytes.includes(TOKEN), 'no byte of the store holds the token');
  });
});
