import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scrub, shortReason, specSecrets, stderrHint } from '../../../src/tools/mcp/mcpReason.js';

describe('shortReason', () => {
  it('names the cause of a failed fetch', () => {
    const err = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    assert.equal(shortReason(err), 'fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('says "invalid response" for a schema error instead of dumping its issues', () => {
    const zod = Object.assign(new Error('[\n  {"code": "invalid_type"}\n]'), { name: 'ZodError', issues: [] });
    assert.equal(shortReason(zod), 'invalid response from the server');
  });

  it('is one line of at most 200 characters', () => {
    const reason = shortReason(new Error(`${'x'.repeat(500)}\nsecond line`));
    assert.equal(reason.length, 200);
    assert.ok(!reason.includes('\n'));
    assert.equal(shortReason('plain\nstring'), 'plain');
  });

  it('scrubs secret values', () => {
    assert.equal(shortReason(new Error('401 for Bearer abc123xyz'), ['abc123xyz']), '401 for Bearer [redacted]');
    assert.equal(scrub('short ab stays', ['ab']), 'short ab stays');
  });
});

describe('specSecrets', () => {
  it('lists credential-named header and env values, not configuration nor the inherited allow-list', () => {
    const headers = { authorization: 'Bearer t0ken', 'X-Speaker': 'assistant' };
    assert.deepEqual(specSecrets({ headers }), ['Bearer t0ken']);
    const env = { PATH: '/usr/bin', HOME: '/root', LC_ALL: 'C', API_KEY: 'k-123456', LOG_LEVEL: 'warn' };
    // Premise: every configured env value was listed, so a reason saying "warn" lost the word.
    assert.deepEqual(specSecrets({ env }), ['k-123456']);
  });
});

describe('stderrHint', () => {
  it('picks the error line of a Node trace, not its last line', () => {
    const trace = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/srv/index.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '',
      'Node.js v20.20.2',
    ];
    assert.equal(stderrHint(trace), "Error: Cannot find module '/srv/index.js'");
  });

  it('takes the last line of a Python traceback, else the last non-empty line, else null', () => {
    assert.equal(
      stderrHint(['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'mcp'"]),
      "ModuleNotFoundError: No module named 'mcp'",
    );
    assert.equal(stderrHint(['starting', 'bye', '']), 'bye');
    assert.equal(stderrHint([]), null);
  });
});
