// Code tools through createAgent: registered by the embedding program, run in the worker's own process, checked
// against their schema and the permission rules.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgent, runtimeOf } from '../../src/agent.js';
import { silentLogger } from '../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { tools } from '../fixtures/codeTools.js';
import { within } from './wait.js';

const MODULE = new URL('../fixtures/codeTools.js', import.meta.url);

describe('code tools', () => {
  let model: ScriptedModel;
  const marker = join(mkdtempSync(join(tmpdir(), 'agentd-code-')), 'touched');
  const control = join(mkdtempSync(join(tmpdir(), 'agentd-code-')), 'touched-without-rules');
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'done' }],
      match: [
        {
          when_contains: 'use code tools',
          times: 1,
          tool_calls: [
            { name: 'add', arguments: { a: 2, b: 3 } },
            { name: 'add', arguments: { a: 'two' } },
            { name: 'boom', arguments: {} },
            { name: 'touch', arguments: { path: control } },
          ],
        },
        { when_contains: 'touch it', times: 1, tool_calls: [{ name: 'touch', arguments: { path: marker } }] },
      ],
    });
  });
  after(async () => model.close());

  const agentWith = async (files: string[] = []) =>
    createAgent({
      config: {
        files,
        env: { AGENTD_STATE_DIR: mkdtempSync(join(tmpdir(), 'agentd-code-')) },
        flags: { intelligence: model.url },
      },
      tools,
      toolsModule: MODULE,
      log: silentLogger,
    });

  it('run in the worker process; bad arguments and a throw are tool errors the model sees', async () => {
    const agent = await agentWith();
    try {
      const outcome = await within(agent.send('use code tools'), 20_000, 'code tool turn');
      assert.equal(outcome.status, 'completed', outcome.error);
      const results =
        runtimeOf(agent)
          .supervisor.conversation('root')
          ?.messages.filter((m) => m.role === 'tool') ?? [];
      const [sum, invalid, boom] = results.map((m) => (m.role === 'tool' ? m : null));
      assert.equal(sum?.is_error, false);
      const value = sum?.content as { sum: number; pid: number } | undefined;
      assert.equal(value?.sum, 5);
      assert.notEqual(value?.pid, process.pid, 'ran in the worker, not the supervisor');
      assert.equal(invalid?.is_error, true);
      assert.match(String(invalid?.content), /^invalid arguments for add:/);
      assert.equal(boom?.is_error, true);
      assert.equal(boom?.content, 'boom failed: kaboom');
      assert.equal(existsSync(control), true, 'control: touch runs when no rule applies');
    } finally {
      await agent.close();
    }
  });

  it('a deny rule on a code tool stops it before it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-code-'));
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'security:\n  policies:\n    - {name: no-touch, match: {tool: touch}, action: deny}\n');
    const agent = await agentWith([file]);
    try {
      const outcome = await within(agent.send('touch it'), 20_000, 'gated turn');
      assert.equal(outcome.status, 'completed', outcome.error);
      const denied = runtimeOf(agent)
        .supervisor.conversation('root')
        ?.messages.find((m) => m.role === 'tool');
      assert.ok(denied?.role === 'tool' && denied.is_error);
      assert.match(String(denied.content), /no-touch/);
      assert.equal(existsSync(marker), false, 'the tool never ran');
    } finally {
      await agent.close();
    }
  });

  it('createAgent refuses tools its module does not export', async () => {
    await assert.rejects(
      createAgent({
        config: { env: { AGENTD_STATE_DIR: mkdtempSync(join(tmpdir(), 'agentd-code-')) } },
        tools: [{ ...tools[0]!, name: 'not_there' }],
        toolsModule: MODULE,
        log: silentLogger,
      }),
      /tool "not_there" is not exported/,
    );
  });
});
