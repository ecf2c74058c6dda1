// The supervisor's side of the one redactor (issue 13 item 3): the spawn frame tells a worker every secret the
// config knows, and whatever a worker sends back is redacted where the supervisor receives it, before anything is
// stored, even from a worker that ignores the list (here a double that quotes it verbatim). Without the redaction
// in Children.onFrame the memory entry written from a tool request reads `leaked: … bob-bearer-8e21c7aa` (a fold-only
// redaction never saw it), and so would the outcome and transcript.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { WorkerEntry } from '../../src/supervisor/workerHandle.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const TOKEN = 'bob-bearer-8e21c7aa';
const leaky: WorkerEntry = {
  execPath: process.execPath,
  args: [fileURLToPath(new URL('../doubles/leakyWorker.js', import.meta.url))],
};

describe('the supervisor redacts what a worker sends back', () => {
  it('a principal token in a turn result is stored nowhere: outcome, transcript, file bytes', async () => {
    const yaml = 'a2a:\n  principals:\n    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}\n';
    const rig = await startRig({ turns: [{ content: 'unused' }] }, { BOB_TOKEN: TOKEN }, { yaml, workerEntry: leaky });
    try {
      const event = (await rig.sup.accept({ context_id: 'r', text: 'say something', principal: 'operator' })).record;
      const outcome = await within(rig.sup.outcomeOf(event.id), 30_000, 'the turn folds');
      // Premise: the worker was told the token (its result quotes the spawn frame's list) and sent it back raw.
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.error ?? '', /^leaked: .*\[redacted\]/);
      assert.ok(!JSON.stringify(outcome).includes(TOKEN), 'the outcome the caller hears');
      const messages = JSON.stringify(rig.sup.conversation('r')?.messages);
      assert.match(messages, /turn ended with status failed: leaked: .*\[redacted\]/);
      assert.ok(!messages.includes(TOKEN), 'the transcript the model reads');
      const memory = await rig.store.memory.get('leak', Date.now());
      assert.match(JSON.stringify(memory?.value), /leaked: .*\[redacted\]/, 'the tool request was served');
      assert.ok(!JSON.stringify(memory).includes(TOKEN), 'the memory entry written from tool arguments');
      const stored = await rig.store.inbox.find(event.id);
      assert.match(stored?.outcome?.error ?? '', /\[redacted\]/);
      assert.ok(!JSON.stringify(stored).includes(TOKEN), 'the stored inbox record');
    } finally {
      await rig.close();
    }
    const files = readdirSync(rig.dir).filter((name) => name.startsWith('agentd.db'));
    assert.ok(files.length > 0);
    for (const name of files) assert.ok(!readFileSync(join(rig.dir, name)).includes(TOKEN), `no byte of ${name}`);
  });
});
