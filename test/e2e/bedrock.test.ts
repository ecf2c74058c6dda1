// Bedrock through the binary: `dialect: bedrock` with credentials from the AWS environment or a profile file, a
// turn with a tool round that fails over from a 503 endpoint, a 403 that exits 4, and a missing region or key that
// exits 2 before anything starts. No key, session token or signature reaches stdout or stderr.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { sigV4Parts } from '../doubles/scriptedModelBedrock.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIAE2EBEDROCK0001',
  AWS_SECRET_ACCESS_KEY: 'e2e/bedrock+secret/0001',
  AWS_SESSION_TOKEN: 'e2e-bedrock-session-0001',
};
const CLAUDE = 'anthropic.claude-haiku-4-5-20251001-v1:0';

function configFile(dir: string, endpoints: string[], auth: string): string {
  const file = join(dir, 'agent.yaml');
  const list = endpoints.map((e) => JSON.stringify(e)).join(', ');
  writeFileSync(
    file,
    `intelligence:\n  dialect: bedrock\n  model: ${CLAUDE}\n  endpoints: [${list}]\n  auth: ${auth}\n`,
  );
  return file;
}

function assertNoSecret(text: string, extra: string[] = []): void {
  for (const secret of [KEYS.AWS_SECRET_ACCESS_KEY, KEYS.AWS_SESSION_TOKEN, KEYS.AWS_ACCESS_KEY_ID, ...extra]) {
    assert.ok(!text.includes(secret), `a secret leaked: ${secret}`);
  }
}

describe('bedrock through the binary', () => {
  let model: ScriptedModel;
  let down: ScriptedModel;
  let denied: ScriptedModel;
  before(async () => {
    [model, down, denied] = await Promise.all([
      startScriptedModel({
        turns: [{ tool_calls: [{ name: 'memory.list', arguments: {} }] }, { content: 'bedrock answer' }],
      }),
      startScriptedModel({ turns: [{ http_status: 503 }] }),
      startScriptedModel({
        turns: [{ http_status: 403, body: `{"message":"no access for ${KEYS.AWS_ACCESS_KEY_ID}"}` }],
      }),
    ]);
  });
  after(async () => Promise.all([model, down, denied].map((m) => m.close())));

  it('a tool round after a 503 failover, every request signed for the region, no temperature to Claude', async () => {
    const dir = tempStateDir();
    const file = configFile(dir, [down.base, model.base], '{kind: aws, region: eu-north-1}');
    const run = await runAgentd(['--config', file, '--prompt', 'list my memory'], {
      env: { AGENTD_STATE_DIR: dir, HOME: dir, ...KEYS },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'bedrock answer\n');
    assert.equal(down.requests.length, 3, 'the 503 endpoint was tried and retried twice');
    assert.equal(model.requests.length, 2, 'a tool round, then the answer');
    for (const request of model.requests) {
      assert.equal(request.path, `/model/${encodeURIComponent(CLAUDE)}/converse`);
      assert.equal(sigV4Parts(request.headers)?.region, 'eu-north-1');
      const inference = (request.body as { inferenceConfig: Record<string, unknown> }).inferenceConfig;
      assert.equal('temperature' in inference, false);
    }
    const last = JSON.stringify(model.requests[1]?.body);
    assert.match(last, /"toolResult"/);
    assert.equal(eventsNamed(run, 'turn.done', 'supervisor')[0]?.status, 'completed');
    const signature = String(model.requests[0]?.headers.authorization).split('Signature=')[1] ?? '';
    assertNoSecret(run.stdout + run.stderr, [signature]);
  });

  it('a 403 exits 4 after one request, its error without the key', async () => {
    const dir = tempStateDir();
    const file = configFile(dir, [denied.base, model.base], '{region: eu-north-1}');
    const before = model.requests.length;
    const run = await runAgentd(['--config', file, '--prompt', 'hello'], {
      env: { AGENTD_STATE_DIR: dir, HOME: dir, ...KEYS },
    });
    assert.equal(run.code, 4, run.stderr);
    assert.equal(denied.requests.length, 1);
    assert.equal(model.requests.length, before, 'a fatal error never fails over');
    assert.match(run.stderr, /HTTP 403/);
    assertNoSecret(run.stdout + run.stderr);
  });

  it('credentials from a profile file; none anywhere, or no region, exits 2 naming intelligence.auth', async () => {
    const dir = tempStateDir();
    const creds = join(dir, 'credentials');
    writeFileSync(creds, '[work]\naws_access_key_id = AKIAPROFILE0001\naws_secret_access_key = profile-secret-0001\n');
    const before = model.requests.length;
    const file = configFile(dir, [model.base], '{profile: work, region: us-east-2}');
    const env = { AGENTD_STATE_DIR: dir, HOME: dir, AWS_SHARED_CREDENTIALS_FILE: creds };
    const run = await runAgentd(['--config', file, '--prompt', 'list my memory'], { env });
    assert.equal(run.code, 0, run.stderr);
    const signed = model.requests.slice(before).map((r) => sigV4Parts(r.headers));
    assert.ok(signed.length > 0 && signed.every((s) => s?.keyId === 'AKIAPROFILE0001' && s.region === 'us-east-2'));
    assertNoSecret(run.stderr, ['profile-secret-0001']);

    const none = await runAgentd(['--config', configFile(dir, [model.base], '{region: us-east-2}'), '--prompt', 'x'], {
      env: { AGENTD_STATE_DIR: dir, HOME: dir },
    });
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /intelligence\.auth: no AWS credentials/);
    const noRegion = await runAgentd(['--config', configFile(dir, [model.base], '{kind: aws}'), '--prompt', 'x'], {
      env: { AGENTD_STATE_DIR: dir, HOME: dir, ...KEYS },
    });
    assert.equal(noRegion.code, 2, noRegion.stderr);
    assert.match(noRegion.stderr, /intelligence\.auth: no AWS region/);
    assertNoSecret(none.stderr + noRegion.stderr);
  });

  it('the region from ~/.aws/config; an SSO profile exits 2 naming intelligence.auth and what is unsupported', async () => {
    const dir = tempStateDir();
    mkdirSync(join(dir, '.aws'));
    writeFileSync(
      join(dir, '.aws', 'config'),
      '[default]\nregion = eu-north-1\n\n[profile corp]\nsso_session = corp\n',
    );
    const before = model.requests.length;
    const env = { AGENTD_STATE_DIR: dir, HOME: dir, ...KEYS };
    const run = await runAgentd(
      ['--config', configFile(dir, [model.base], '{kind: aws}'), '--prompt', 'list my memory'],
      {
        env,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const signed = model.requests.slice(before).map((r) => sigV4Parts(r.headers));
    assert.ok(signed.length > 0 && signed.every((s) => s?.region === 'eu-north-1'));
    const sso = await runAgentd(['--config', configFile(dir, [model.base], '{profile: corp}'), '--prompt', 'x'], {
      env: { AGENTD_STATE_DIR: dir, HOME: dir },
    });
    assert.equal(sso.code, 2, sso.stderr);
    assert.match(
      sso.stderr,
      /intelligence\.auth: profile 'corp' gets its keys by sso_session, which agentd does not support/,
    );
  });
});
