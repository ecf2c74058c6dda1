// `{{secret:…}}` in a webhook start's auth is the config layer's (house rule 4): checked at compile, resolved from
// the env compileConfig was given (never process.env), and kept out of the definition a run pins in the store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runtimeSecretProblems, workflowSecrets } from '../../../src/config/workflowSecrets.js';
import { DaemonError } from '../../../src/errors.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const HOOK = `workflows:
  - name: ci
    steps:
      hook: {kind: webhook, path: /hooks/ci, auth: {hmac: {secret: "{{secret:HOOK_KEY}}"}}}
      f: {kind: finish, depends_on: [hook]}
`;

describe('workflow secrets', () => {
  it('an unset secret in a configured webhook is a config error naming workflow, step and field', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', HOOK);
    assert.match(compileError(dir, { files: [file] }), /workflow "ci" step "hook": auth: secret 'HOOK_KEY' is not set/);
  });

  it("resolves from compileConfig's env, not process.env; the definition keeps the reference", () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', HOOK);
    // Premise: process.env holds another value; a resolver reading it would answer that one.
    process.env['HOOK_KEY'] = 'from-process-env';
    try {
      const config = compileIn(dir, { files: [file], env: { HOOK_KEY: 'from-config-env' } });
      const resolve = workflowSecrets(config.workflows);
      assert.equal(resolve('{{secret:HOOK_KEY}}'), 'from-config-env');
      const auth = config.workflows[0]?.steps['hook']?.fields['auth'];
      assert.deepEqual(auth, { hmac: { secret: '{{secret:HOOK_KEY}}' } }, 'no secret in what a run pins');
      // A workflow created at run time resolving a secret the env never had fails loudly instead of comparing
      // callers against the literal reference text.
      assert.throws(() => resolve('{{secret:NOT_THERE}}'), DaemonError);
    } finally {
      delete process.env['HOOK_KEY'];
    }
  });

  it('an unset secret in an http.sign inside a foreach body is a config error too', () => {
    const dir = tempDir();
    const nested = `workflows:
  - name: fan
    steps:
      s: {kind: manual}
      each:
        kind: foreach
        depends_on: s
        over: [1, 2]
        body:
          h: {kind: http, url: "https://hooks.example/x", method: POST, body: "{{item}}", sign: {key: "{{secret:SIGN_KEY}}"}}
      f: {kind: finish, depends_on: [each]}
`;
    const file = writeConfig(dir, 'a.yaml', nested);
    assert.match(compileError(dir, { files: [file] }), /workflow "fan" step "h": sign: secret 'SIGN_KEY' is not set/);
  });

  it('a definition made at run time may reference only secrets a configured workflow references', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', HOOK);
    const config = compileIn(dir, { files: [file], env: { HOOK_KEY: 'k1', AWS_SECRET_ACCESS_KEY: 'k2' } });
    const made = (key: string) => {
      const loaded = loadWorkflow({
        name: 'm',
        steps: {
          s: { kind: 'manual' },
          each: {
            kind: 'foreach',
            depends_on: 's',
            over: [1],
            body: { h: { kind: 'http', url: 'https://x.example', method: 'POST', body: 'b', sign: { key } } },
          },
          f: { kind: 'finish', depends_on: 'each' },
        },
      });
      assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('; '));
      return runtimeSecretProblems(config.workflows, loaded.def);
    };
    assert.deepEqual(made('{{secret:HOOK_KEY}}'), []);
    assert.deepEqual(made('{{secret:AWS_SECRET_ACCESS_KEY}}'), [
      'workflow "m" step "h": sign: secret \'AWS_SECRET_ACCESS_KEY\' is not referenced by a configured workflow (a workflow made at run time may use only those)',
    ]);
  });

  it('refuses credentials in search.provider.url, without echoing them', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'search:\n  provider:\n    url: "https://u:hunter22@search.example/search"\n',
    );
    const message = compileError(dir, { files: [file] });
    assert.match(message, /search\.provider\.url.*must not hold credentials/);
    assert.ok(!message.includes('hunter22'), message);
  });

  it('refuses a literal human.to that is not in a2a.principals', () => {
    const dir = tempDir();
    const doc = `a2a:
  principals:
    - {id: alice, role: user, match: {any: true}}
workflows:
  - name: ask
    steps:
      s: {kind: manual}
      h: {kind: human, depends_on: s, question: "Ok?", to: mallory}
      f: {kind: finish, depends_on: [h]}
`;
    const file = writeConfig(dir, 'a.yaml', doc);
    assert.match(
      compileError(dir, { files: [file] }),
      /workflow "ask" step "h": to "mallory" is not in a2a\.principals/,
    );
  });
});
