import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AwsSources,
  configFilePath,
  credentialsFilePath,
  NO_AWS_AUTH,
  readSection,
  resolveAwsAuth,
} from '../../../src/config/awsCredentials.js';
// AWS keys and region resolution (reference §5.1): keys from auth, the environment or the credentials file; the
// region from auth, the environment or the AWS config file; problems that name the source and never a key.
import type { AuthConfig } from '../../../src/config/types.js';

const FILE = `# shared credentials
[default]
aws_access_key_id = AKIADEFAULT
aws_secret_access_key = default-secret
region = xx-wrong-file-1

[work]
aws_access_key_id=AKIAWORK
aws_secret_access_key=work-secret
aws_session_token=work-session
region=ap-east-1
`;

const CONFIG = `[default]
region = eu-west-3

[profile work]
region=eu-central-1

[profile sso]
sso_session = corp
`;

function sources(
  env: Record<string, string>,
  file: string | null = FILE,
  config: string | null = CONFIG,
): AwsSources & { reads: string[] } {
  const reads: string[] = [];
  return {
    env,
    home: '/home/u',
    reads,
    readFile: (path: string) => {
      reads.push(path);
      return path.endsWith('config') ? config : file;
    },
  };
}
const decl = (over: Partial<AuthConfig> = {}): AuthConfig => ({ ...NO_AWS_AUTH, ...over });
const ENV_KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIAENV',
  AWS_SECRET_ACCESS_KEY: 'env-secret',
  AWS_SESSION_TOKEN: 'env-session',
};

describe('readSection', () => {
  it('reads the section whose header is exactly one of the names; absent ⇒ null', () => {
    assert.equal(readSection(FILE, ['default'])?.aws_access_key_id, 'AKIADEFAULT');
    assert.equal(readSection(FILE, ['work'])?.aws_session_token, 'work-session');
    assert.equal(readSection(CONFIG, ['profile work'])?.region, 'eu-central-1');
    assert.equal(readSection(CONFIG, ['work']), null, 'the config file names a profile `profile X`');
    assert.equal(readSection(FILE, ['nope']), null);
  });
});

describe('resolveAwsAuth', () => {
  it('config keys first, and the region from config', () => {
    const src = sources(ENV_KEYS);
    const r = resolveAwsAuth(decl({ region: 'us-west-2', access_key_id: 'AKIACFG', secret_access_key: 's' }), src);
    assert.deepEqual(r, {
      ok: true,
      source: 'config',
      auth: { region: 'us-west-2', access_key_id: 'AKIACFG', secret_access_key: 's', session_token: null },
    });
    assert.deepEqual(src.reads, [], 'no file is read when the keys are configured');
  });
  it('then the environment (with the session token), region from AWS_REGION', () => {
    const r = resolveAwsAuth(decl(), sources({ ...ENV_KEYS, AWS_REGION: 'ap-south-1' }));
    assert.ok(r.ok);
    assert.equal(r.source, 'env');
    assert.deepEqual(r.auth, {
      region: 'ap-south-1',
      access_key_id: 'AKIAENV',
      secret_access_key: 'env-secret',
      session_token: 'env-session',
    });
  });
  it('a named profile wins over the environment; AWS_PROFILE picks one; the profile may give the region', () => {
    const named = resolveAwsAuth(decl({ profile: 'work' }), sources({ ...ENV_KEYS, AWS_REGION: 'us-east-1' }));
    assert.ok(named.ok);
    assert.equal(named.auth.access_key_id, 'AKIAWORK');
    assert.equal(named.auth.region, 'us-east-1', 'the environment region wins over the config file');
    const src = sources({ AWS_PROFILE: 'work' });
    const picked = resolveAwsAuth(decl(), src);
    assert.ok(picked.ok);
    assert.equal(picked.auth.session_token, 'work-session');
    // Premise: the credentials file's `region` (ap-east-1) is not where the AWS tools keep it; the config file's is.
    assert.equal(picked.auth.region, 'eu-central-1');
    assert.deepEqual(src.reads, ['/home/u/.aws/credentials', '/home/u/.aws/config']);
  });
  it('the default profile, from AWS_SHARED_CREDENTIALS_FILE when set', () => {
    const src = sources({ AWS_SHARED_CREDENTIALS_FILE: '/etc/aws-creds', AWS_DEFAULT_REGION: 'eu-west-1' });
    const r = resolveAwsAuth(decl(), src);
    assert.ok(r.ok);
    assert.equal(r.auth.access_key_id, 'AKIADEFAULT');
    assert.deepEqual(src.reads, ['/etc/aws-creds']);
    assert.equal(credentialsFilePath({}, '/root/'), '/root/.aws/credentials');
  });
  it('the region of [default] in the config file, which AWS_CONFIG_FILE may move', () => {
    const src = sources({ AWS_CONFIG_FILE: '/etc/aws-config' });
    const r = resolveAwsAuth(decl(), src);
    assert.ok(r.ok);
    assert.equal(r.auth.region, 'eu-west-3');
    assert.deepEqual(src.reads, ['/home/u/.aws/credentials', '/etc/aws-config']);
    assert.equal(configFilePath({}, '/root'), '/root/.aws/config');
  });
  it('a region that is not a region id is refused, naming where it came from', () => {
    const bad = (d: AuthConfig, env: Record<string, string>, config: string | null = CONFIG) => {
      const r = resolveAwsAuth(d, sources({ ...ENV_KEYS, ...env }, FILE, config));
      return r.ok ? '' : r.problem;
    };
    assert.equal(
      bad(decl(), { AWS_REGION: 'Frankfurt' }),
      "AWS_REGION: 'Frankfurt' is not an AWS region id (like us-east-1)",
    );
    assert.match(bad(decl(), { AWS_DEFAULT_REGION: 'us_east_1' }), /^AWS_DEFAULT_REGION: /);
    assert.match(
      bad(decl(), {}, '[default]\nregion = eu west 1\n'),
      /^region of \[default\] in \/home\/u\/\.aws\/config: 'eu west 1' is not an AWS region id/,
    );
    assert.equal(bad(decl({ region: 'us-gov-west-1' }), {}), '', 'GovCloud ids are region ids');
  });
  it('SSO, credential_process and roles are refused by name (only static keys are supported)', () => {
    const r = resolveAwsAuth(decl({ profile: 'sso' }), sources({}));
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.problem, /^profile 'sso' gets its keys by sso_session, which agentd does not support/);
    const proc = resolveAwsAuth(decl(), sources({}, null, '[default]\ncredential_process = /bin/creds\n'));
    assert.match(proc.ok ? '' : proc.problem, /by credential_process, which agentd does not support/);
  });
  it('problems name what is missing and never a value', () => {
    const none = resolveAwsAuth(decl({ region: 'us-east-1' }), sources({}, null));
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.problem : '', /^no AWS credentials: \/home\/u\/\.aws\/credentials does not exist/);
    assert.match(!none.ok ? none.problem : '', /instance and container roles, SSO and credential_process are not/);
    const noRegion = resolveAwsAuth(decl(), sources(ENV_KEYS));
    const noConfig = resolveAwsAuth(decl(), sources(ENV_KEYS, FILE, null));
    assert.deepEqual(noConfig, {
      ok: false,
      problem:
        'no AWS region: set auth.region, AWS_REGION in the environment, or region in [default] of /home/u/.aws/config',
    });
    assert.equal(noRegion.ok, true, 'the config file gave the region');
    const half = resolveAwsAuth(decl({ access_key_id: 'AKIAHALF' }), sources({}));
    assert.equal(half.ok, false);
    assert.doesNotMatch(JSON.stringify(half), /AKIAHALF/);
  });
});
