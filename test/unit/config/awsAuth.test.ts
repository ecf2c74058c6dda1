// intelligence.auth and bedrock providers through compileConfig: secrets, the AWS environment, the default endpoint,
// the spec a worker gets, and the config errors (one line, the key path, never a value).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { specForJob, specForModel } from '../../../src/intel/models.js';
import { redact } from '../../../src/obs/log.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

function compileYaml(lines: string[], env: Record<string, string>) {
  const dir = tempDir();
  const file = writeConfig(dir, 'a.yaml', lines.join('\n'));
  return { dir, file, env: { HOME: dir, ...env } };
}

describe('intelligence.auth', () => {
  it('keys from {{secret:…}}, registered for redaction; the default endpoint from the region', () => {
    const { dir, file, env } = compileYaml(
      [
        'intelligence:',
        '  dialect: bedrock',
        '  model: anthropic.claude-x',
        '  auth:',
        '    kind: aws',
        '    region: eu-west-1',
        '    access_key_id: "{{secret:AK}}"',
        '    secret_access_key: "{{secret:SK}}"',
      ],
      { AK: 'AKIAFROMSECRET01', SK: 'secret-from-env-01' },
    );
    const config = compileIn(dir, { files: [file], env });
    const spec = specForJob(config, 'turn');
    assert.deepEqual(spec.endpoints, ['https://bedrock-runtime.eu-west-1.amazonaws.com']);
    assert.deepEqual(spec.aws, {
      region: 'eu-west-1',
      access_key_id: 'AKIAFROMSECRET01',
      secret_access_key: 'secret-from-env-01',
      session_token: null,
    });
    assert.equal(redact('k=secret-from-env-01'), 'k=[redacted]');
  });
  it('a bedrock provider takes the AWS environment; other connections carry no aws', () => {
    const { dir, file, env } = compileYaml(
      [
        'intelligence:',
        '  endpoints: https://api.openai.com/v1',
        '  providers:',
        '    aws: {dialect: bedrock, auth: {region: us-east-1}}',
        '  models:',
        '    claude: {model: anthropic.claude-y, provider: aws}',
      ],
      {
        AWS_ACCESS_KEY_ID: 'AKIAENVPROVIDER1',
        AWS_SECRET_ACCESS_KEY: 'env-provider-secret',
        AWS_SESSION_TOKEN: 'tok-1234',
      },
    );
    const config = compileIn(dir, { files: [file], env });
    const spec = specForModel(config, 'claude');
    assert.equal(spec.dialect, 'bedrock');
    assert.equal(spec.aws?.session_token, 'tok-1234');
    assert.equal(redact('tok-1234 env-provider-secret'), '[redacted] [redacted]', 'environment keys are redacted too');
    assert.equal('aws' in specForJob(config, 'turn'), false);
  });
  it('family: claude reaches the spec of a model; another value is refused naming the key', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123';
    const keys = { AWS_ACCESS_KEY_ID: 'AKIAFAMILY000001', AWS_SECRET_ACCESS_KEY: 'family-secret' };
    const declared = compileYaml(
      [
        'intelligence:',
        '  dialect: bedrock',
        '  auth: {region: us-east-1}',
        '  models:',
        `    profiled: {model: "${arn}", family: claude}`,
        `    plain: {model: "${arn}"}`,
      ],
      keys,
    );
    const config = compileIn(declared.dir, { files: [declared.file], env: declared.env });
    assert.equal(specForModel(config, 'profiled').family, 'claude');
    assert.equal('family' in specForModel(config, 'plain'), false, 'no family declared: told from the id');
    const typo = compileYaml(['intelligence:', '  models:', '    m: {model: x, family: claud}'], {});
    assert.match(
      compileError(typo.dir, { files: [typo.file], env: typo.env }),
      /a\.yaml:\d+: intelligence\.models\.m\.family: expected one of claude, other, got "claud"/,
    );
  });
  it('a region that is not a region id is refused at compile, from the key or from AWS_REGION', () => {
    const keys = { AWS_ACCESS_KEY_ID: 'AKIAREGION000001', AWS_SECRET_ACCESS_KEY: 'region-secret' };
    const key = compileYaml(['intelligence:', '  dialect: bedrock', '  auth: {region: eu_west_1}'], keys);
    assert.match(
      compileError(key.dir, { files: [key.file], env: key.env }),
      /a\.yaml:\d+: intelligence\.auth\.region: expected an AWS region id like us-east-1, got "eu_west_1"/,
    );
    const env = compileYaml(['intelligence:', '  dialect: bedrock'], { ...keys, AWS_REGION: 'Ireland' });
    assert.match(
      compileError(env.dir, { files: [env.file], env: env.env }),
      /intelligence\.auth: AWS_REGION: 'Ireland' is not an AWS region id/,
    );
  });
  it('errors: no credentials, auth on another dialect, an unknown auth key', () => {
    const none = compileYaml(['intelligence:', '  dialect: bedrock', '  auth: {region: us-east-1}'], {});
    assert.match(
      compileError(none.dir, { files: [none.file], env: none.env }),
      /a\.yaml:\d+: intelligence\.auth: no AWS credentials/,
    );
    const wrong = compileYaml(['intelligence:', '  auth: {region: us-east-1}'], {});
    assert.match(
      compileError(wrong.dir, { files: [wrong.file], env: wrong.env }),
      /intelligence\.auth: only for dialect bedrock/,
    );
    const typo = compileYaml(['intelligence:', '  dialect: bedrock', '  auth: {regoin: us-east-1}'], {});
    assert.match(
      compileError(typo.dir, { files: [typo.file], env: typo.env }),
      /intelligence\.auth\.regoin: unknown key \(did you mean 'region'\?\)/,
    );
  });
});
