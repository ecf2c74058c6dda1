// Redaction touches credentials only, and text only (issue 13 review, item 1): an ordinary header value
// (`X-Speaker: assistant`) is configuration and survives in the answer and the stored transcript, while a literal
// credential header (`X-Api-Key`) and a principal's token the model echoes are redacted from stdout, stderr and
// every stored byte. Premise: when every header value was registered, the answer read "[redacted] speaking" and the
// stored message `{"role":"[redacted]"}`; both assertions on "assistant" fail then.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { runAgentd, tempStateDir } from './harness.js';

const API_KEY = 'literal-api-key-5c0ffee1';
const BEARER = 'carol-bearer-0a9b8c7d6e';

describe('redaction keeps ordinary text', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: `assistant speaking; I must warn you: ${API_KEY} ${BEARER}` }],
    });
  });
  after(() => model.close());

  it('an ordinary header value survives in the answer and the transcript; credentials are redacted', async () => {
    const cwd = tempStateDir();
    const yaml =
      `intelligence:\n  endpoints: ${model.url}\n  headers: {X-Speaker: assistant, X-Api-Key: ${API_KEY}}\n` +
      'a2a:\n  principals:\n    - {id: carol, role: user, match: {bearer: "{{secret:CAROL_TOKEN}}"}}\n';
    writeFileSync(join(cwd, 'agent.yaml'), yaml);
    const args = ['--config', 'agent.yaml', '--state-dir', 'kept', '--prompt', 'who speaks?'];
    const run = await runAgentd(args, { cwd, env: { CAROL_TOKEN: BEARER } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'assistant speaking; I must warn you: [redacted] [redacted]\n');
    assert.equal(model.requests.at(-1)?.headers['x-speaker'], 'assistant', 'the header was sent as configured');
    assert.ok(!run.stderr.includes(API_KEY) && !run.stderr.includes(BEARER), 'no event line holds a credential');
    const dir = join(cwd, 'kept');
    const bytes = readdirSync(dir)
      .filter((name) => name.startsWith('agentd.db'))
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('');
    assert.ok(bytes.includes('assistant speaking; I must warn you: [redacted]'), 'the stored reply keeps its words');
    assert.ok(bytes.includes('"role":"assistant"'), 'the stored message keeps its role');
    assert.ok(!bytes.includes(API_KEY) && !bytes.includes(BEARER), 'no stored byte holds a credential');
  });
});
