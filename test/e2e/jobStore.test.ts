// Which store a one-shot job keeps (issue 13 item 10, reference §2.1): none unless the user names one. Without a
// store a second run of the same --prompt asks the model again and leaves no directory behind; naming a store
// (--state-dir, AGENTD_STATE_DIR, store.path) makes the job durable, so the second run answers from the store.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

describe('the one-shot job store', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'fresh answer' }] });
  });
  after(() => model.close());

  /** Runs the same job twice in `cwd`; how many model calls the second run made, and its result. */
  async function twice(cwd: string, extra: string[], env: Record<string, string> = {}) {
    const args = ['--intelligence', model.url, '--prompt', 'what is new?', ...extra];
    const first = await runAgentd(args, { cwd, env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'fresh answer\n');
    const before = model.requests.length;
    const second = await runAgentd(args, { cwd, env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'fresh answer\n');
    return { first, second, calls: model.requests.length - before };
  }

  it('with no store named, the second run asks the model again and nothing is written', async () => {
    const cwd = tempStateDir();
    const { first, second, calls } = await twice(cwd, []);
    assert.equal(calls, 1, 'the second run asked the model');
    assert.equal(eventsNamed(second, 'turn.spawn').length, 1);
    assert.equal(eventsNamed(first, 'store.opened')[0]?.kind, 'memory');
    assert.equal(eventsNamed(first, 'store.none').length, 1);
    assert.deepEqual(readdirSync(cwd), [], 'no ./.agentd (or anything else) in the working directory');
  });

  it('warns that an existing ./.agentd is not used, and names --state-dir .agentd to keep using it', async () => {
    // Premise: the first run, with --state-dir .agentd, answers from that store; the second run (no store named)
    // asks the model again — so the old store is really ignored, and the warning is what tells the user.
    const cwd = tempStateDir();
    const args = ['--intelligence', model.url, '--prompt', 'what is old?'];
    const kept = await runAgentd([...args, '--state-dir', '.agentd'], { cwd });
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(eventsNamed(kept, 'store.default_ignored').length, 0, 'a named store is no default');
    const before = model.requests.length;
    const plain = await runAgentd(args, { cwd });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(model.requests.length - before, 1, 'the old store was not used');
    const warned = eventsNamed(plain, 'store.default_ignored');
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.level, 'warn');
    assert.equal(warned[0]?.use, '--state-dir .agentd');
    assert.equal(warned[0]?.path, join(cwd, '.agentd', 'agentd.db'));
  });

  it('premise: a named store (--state-dir, AGENTD_STATE_DIR or store.path) answers the second run from it', async () => {
    const cases: Array<[string, string[], Record<string, string>]> = [
      ['--state-dir', ['--state-dir', 'kept'], {}],
      ['AGENTD_STATE_DIR', [], { AGENTD_STATE_DIR: '' }],
      ['store.path', ['--config', 'agent.yaml'], {}],
    ];
    for (const [how, extra, env] of cases) {
      const cwd = tempStateDir();
      if (env.AGENTD_STATE_DIR === '') env.AGENTD_STATE_DIR = join(cwd, 'kept');
      writeFileSync(join(cwd, 'agent.yaml'), 'store:\n  path: kept\n');
      const { second, calls } = await twice(cwd, extra, env);
      assert.equal(calls, 0, `${how}: no model call for an answered prompt`);
      assert.equal(eventsNamed(second, 'prompt.skipped')[0]?.reason, 'answered', how);
      assert.ok(existsSync(join(cwd, 'kept', 'agentd.db')), `${how}: the store is where it was named`);
    }
  });
});
