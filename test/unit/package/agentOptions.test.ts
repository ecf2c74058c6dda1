// createAgent's options: every error is a DaemonError with its typed code and a one-line message naming the option
// — an unknown option, a wrong type, a bad model, `store: ''` — thrown before anything starts (no store file).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import { checkAgentOptions } from '../../../src/agentOptionsCheck.js';
import { DaemonError, type DaemonErrorCode } from '../../../src/errors.js';
import { silentLogger } from '../../../src/obs/log.js';

/** `run` rejects with a one-line DaemonError of `code` whose message matches `message`. */
async function refuses(run: () => Promise<unknown>, code: DaemonErrorCode, message: RegExp): Promise<void> {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof DaemonError, `a DaemonError, not ${String(err)}`);
    assert.equal(err.code, code);
    assert.match(err.message, message);
    assert.doesNotMatch(err.message, /\n/, 'one line');
    return true;
  });
}

const base = { log: silentLogger, config: { env: {} } };
// Untyped on purpose: a JavaScript caller (or a cast) gets past the types; the check must still hold.
const loose = (opts: Record<string, unknown>) => () => createAgent({ ...base, ...opts } as never);

describe('createAgent options', () => {
  it('refuses an unknown option, naming it (with the likely one)', async () => {
    await refuses(loose({ store: 'memory', modle: 'x' }), 'usage_invalid', /^createAgent: unknown option 'modle'$/);
    await refuses(
      loose({ store: 'memory', config: { env: {}, filez: [] } }),
      'usage_invalid',
      /^createAgent: unknown option 'config\.filez' \(did you mean 'config\.files'\?\)$/,
    );
  });

  it('refuses a value of the wrong type, naming the option and what it got', async () => {
    await refuses(
      loose({ store: 'memory', name: 42 }),
      'usage_invalid',
      /^createAgent: option 'name': expected a non-empty string, got 42$/,
    );
    await refuses(
      loose({ store: 'memory', tools: 'lookup' }),
      'usage_invalid',
      /^createAgent: option 'tools': expected a list of tools \(defineTool\), got "lookup"$/,
    );
    await refuses(loose({ store: 'memory', listen: 8080 }), 'usage_invalid', /^createAgent: option 'listen': /);
    await refuses(
      loose({ store: 'memory', producers: [{ name: 'p' }] }),
      'usage_invalid',
      /^createAgent: option 'producers': expected a list of producers/,
    );
  });

  it('refuses a bad model as usage and a bad endpoint as config', async () => {
    await refuses(loose({ store: 'memory', model: '' }), 'usage_invalid', /^createAgent: option 'model': .*got ""$/);
    await refuses(loose({ store: 'memory', model: 7 }), 'usage_invalid', /^createAgent: option 'model': .*got 7$/);
    await refuses(
      loose({ store: 'memory', intelligence: 'not a url' }),
      'config_invalid',
      /^createAgent options:\d+: intelligence\.endpoints: "not a url" is not an http:\/\/ or https:\/\/ URL$/,
    );
  });

  it("refuses store: '' before any side effect (it used to open agentd.db in the working directory)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-options-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await refuses(
        loose({ store: '', config: { env: {}, cwd: dir } }),
        'usage_invalid',
        /^createAgent: option 'store': expected 'memory' or the state directory's path, got ""$/,
      );
    } finally {
      process.chdir(cwd);
    }
    assert.equal(existsSync(join(dir, 'agentd.db')), false);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('refuses options that are not an object, and a tools module that cannot be imported', async () => {
    assert.throws(() => checkAgentOptions(null), /^DaemonError: createAgent: options: expected an object, got null$/);
    await refuses(
      loose({ store: 'memory', toolsModule: join(tmpdir(), 'no-such-tools-module.js') }),
      'usage_invalid',
      /^createAgent: code tools: cannot import file:.*no-such-tools-module\.js: /,
    );
  });

  it('passes every documented option of the right type', () => {
    checkAgentOptions({
      ...{ name: 'a', instruction: '', model: 'm', intelligence: ['http://x'], mcp: { s: { url: 'http://s' } } },
      ...{ store: 'memory', tools: [], toolsModule: new URL('file:///t.js'), log: silentLogger },
      ...{ listen: null, metrics: '127.0.0.1:0', producers: [] },
      config: { files: [], values: {}, env: { A: 'b', B: undefined }, flags: {}, cwd: '/' },
    });
  });
});
