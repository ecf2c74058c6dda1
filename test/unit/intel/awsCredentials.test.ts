import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AwsAuthDecl,
  type AwsSources,
  credentialsFilePath,
  NO_AWS_AUTH,
  readProfile,
  resolveAwsAuth,
} from '../../../src/intel/awsCredentials.js';

const FILE = `# shared credentials
[default]
aws_access_key_id = AKIADEFAULT
aws_secret_access_key = default-secret

[profile work]
aws_access_key_id=AKIAWORK
aws_secret_access_key=work-secret
aws_session_token=work-session
region=eu-central-1
`;

function sources(env: Record<string, string>, file: string | null = FILE): AwsSources & { reads: string[] } {
  const reads: string[] = [];
  return {
    env,
    home: '/home/u',
    reads,
    readFile: (path) => {
      reads.push(path);
      return file;
    },
  };
}
const decl = (over: Partial<AwsAuthDecl> = {}): AwsAuthDecl => ({ ...NO_AWS_AUTH, ...over });
const ENV_KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIAENV',
  AWS_SECRET_ACCESS_KEY: 'env-secret',
  AWS_SESSION_TOKEN: 'env-session',
};

describe('readProfile', () => {
  it('reads a section by name, with or without the `profile ` prefix; absent ⇒ null', () => {
    assert.deepEqual(readProfile(FILE, 'default'), {
      aws_access_key_id: 'AKIADEFAULT',
      aws_secret_access_key: 'default-secret',
    });
    assert.equal(readProfile(FILE, 'work')?.aws_session_token, 'work-session');
    assert.equal(readProfile(FILE, 'nope'), null);
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
    assert.equal(named.auth.region, 'us-east-1', 'the environment region wins over the profile file');
    const src = sources({ AWS_PROFILE: 'work' });
    const picked = resolveAwsAuth(decl(), src);
    assert.ok(picked.ok);
    assert.equal(picked.auth.region, 'eu-central-1');
    assert.equal(picked.auth.session_token, 'work-session');
    assert.deepEqual(src.reads, ['/home/u/.aws/credentials']);
  });
  it('the default profile, from AWS_SHARED_CREDENTIALS_FILE when set', () => {
    const src = sources({ AWS_SHARED_CREDENTIALS_FILE: '/etc/aws-creds', AWS_DEFAULT_REGION: 'eu-west-1' });
    const r = resolveAwsAuth(decl(), src);
    assert.ok(r.ok);
    assert.equal(r.auth.access_key_id, 'AKIADEFAULT');
    assert.deepEqual(src.reads, ['/etc/aws-creds']);
    assert.equal(credentialsFilePath({}, '/root/'), '/root/.aws/credentials');
  });
  it('problems name what is missing and never a value', () => {
    const none = resolveAwsAuth(decl({ region: 'us-east-1' }), sources({}, null));
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.problem : '', /^no AWS credentials: \/home\/u\/\.aws\/credentials does not exist/);
    const noRegion = resolveAwsAuth(decl(), sources(ENV_KEYS));
    assert.deepEqual(noRegion, {
      ok: false,
      problem: 'no AWS region: set auth.region, or AWS_REGION in the environment',
    });
    const half = resolveAwsAuth(decl({ access_key_id: 'AKIAHALF' }), sources({}));
    assert.equal(half.ok, false);
    assert.doesNotMatch(JSON.stringify(half), /AKIAHALF/);
  });
});
