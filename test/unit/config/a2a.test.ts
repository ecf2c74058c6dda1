// The a2a.* keys: listen URLs, tls, principals (with file:line problems), the body limit, and the refusal of a
// non-loopback listener without authentication.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackHost } from '../../../src/config/a2aKeys.js';
import { describeConfigKeys } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { SEED } from '../../fixtures/seedExample.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

function compileYaml(text: string, env: Record<string, string> = {}) {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', text)], env });
}

function errorOf(text: string, env: Record<string, string> = {}): string {
  const dir = tempDir();
  return compileError(dir, { files: [writeConfig(dir, 'a.yaml', text)], env });
}

describe('a2a config', () => {
  it('compiles the seed example whole, a2a block included', () => {
    const config = compileYaml(SEED, { OPENAI_API_KEY: 'sk-seed-key-1', ANTHROPIC_API_KEY: 'sk-seed-key-2' });
    assert.deepEqual(config.a2a, { ...compileYaml('').a2a, listen: 'http://127.0.0.1:8420' });
    assert.equal(config.a2a.card.description, 'agentd: a durable agent daemon');
    assert.equal(config.intelligence.roles.turn, 'smart');
  });

  it('reads listen from the environment; "" means no listener', () => {
    const dir = tempDir();
    assert.equal(compileIn(dir, { env: { AGENTD_A2A_LISTEN: 'http://localhost:0' } }).a2a.listen, 'http://localhost:0');
    assert.equal(compileIn(dir, { env: { AGENTD_A2A_LISTEN: '' } }).a2a.listen, null);
  });

  it('refuses listen values that are not http(s)://host[:port]', () => {
    const cases: Array<[string, RegExp]> = [
      ['unix:///tmp/agentd.sock', /expected http:\/\/HOST:PORT or https:\/\/HOST:PORT, got "unix:"/],
      ['127.0.0.1:8420', /expected http:\/\/HOST:PORT/],
      ['http://127.0.0.1:8420/a2a', /no path, query or fragment/],
      ['http://u:p@127.0.0.1:1', /no user or password/],
      ['8420', /expected http:\/\/HOST:PORT or https:\/\/HOST:PORT, got 8420/],
    ];
    for (const [value, problem] of cases) {
      const message = errorOf(`a2a:\n  listen: ${value}\n`);
      assert.match(message, /^a\.yaml:2: a2a\.listen: /, value);
      assert.match(message, problem, value);
      assert.ok(!message.includes('u:p'), 'credentials are never echoed');
    }
  });

  it('refuses a non-loopback listener without a bearer principal (exit 2 via config_invalid)', () => {
    for (const host of ['0.0.0.0', '10.1.2.3', 'agent.example.com', '[::]']) {
      assert.equal(
        errorOf(`a2a:\n  listen: http://${host}:8420\n`),
        'a.yaml:2: a2a.listen: a non-loopback listener needs authentication (a2a.principals with a bearer)',
      );
    }
    const anyOnly =
      'a2a:\n  listen: http://0.0.0.0:8420\n  principals: [{id: guest, role: user, match: {any: true}}]\n';
    assert.match(errorOf(anyOnly), /non-loopback listener needs authentication/);
    const withBearer =
      'a2a:\n  listen: http://0.0.0.0:8420\n  principals: [{id: ci, role: agent, match: {bearer: "{{secret:CI_TOKEN}}"}}]\n';
    assert.equal(compileYaml(withBearer, { CI_TOKEN: 'ci-token-1-abcdefg' }).a2a.listen, 'http://0.0.0.0:8420');
  });

  it('needs tls for an https listener and refuses tls without one', () => {
    assert.equal(
      errorOf('a2a:\n  listen: https://127.0.0.1:8443\n'),
      'a.yaml:2: a2a.listen: an https listener needs a2a.tls {cert, key}',
    );
    assert.equal(
      errorOf('a2a:\n  tls: {cert: c.pem, key: k.pem}\n'),
      'a.yaml:2: a2a.tls: only for an https a2a.listen',
    );
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'a2a:\n  listen: https://127.0.0.1:0\n  tls: {cert: c.pem, key: /etc/k.pem}\n',
    );
    const config = compileIn(dir, { files: [file] });
    assert.deepEqual(
      config.a2a.tls,
      { cert: `${dir}/c.pem`, key: '/etc/k.pem' },
      'paths resolve against cwd; no file is read',
    );
    assert.match(
      errorOf('a2a:\n  tls: {cert: 5, key: k.pem}\n'),
      /^a\.yaml:2: a2a\.tls\.cert: expected a file path \(a string\)/,
    );
    assert.match(errorOf('a2a:\n  tls: {cert: c.pem}\n'), /a2a\.tls\.key: expected a file path/);
  });

  it('reads principals in order, resolving and redacting bearer secrets', () => {
    const lines: string[] = [];
    const text = [
      'a2a:',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE}}"}, grants: [fetch, "fs.*"]}',
      '    - {id: anyone, role: agent, match: {any: true}}',
    ].join('\n');
    const config = compileYaml(text, { ALICE: 'alice-secret-token' });
    assert.deepEqual(config.a2a.principals, [
      { id: 'alice', role: 'user', match: { bearer: 'alice-secret-token' }, grants: ['fetch', 'fs.*'] },
      { id: 'anyone', role: 'agent', match: { any: true }, grants: [] },
    ]);
    createLogger({ write: (line) => lines.push(line) }).info('a2a.listen', { token: 'alice-secret-token' });
    assert.ok(!lines.join('').includes('alice-secret-token'));
  });

  it('names bad principal entries by file:line and key path', () => {
    const at = (entry: string) =>
      errorOf(`a2a:\n  principals:\n    - id: ok\n      role: user\n      match: {any: true}\n${entry}`);
    const cases: Array<[string, string]> = [
      [
        '    - {id: bob, role: admin, match: {any: true}}\n',
        'a.yaml:6: a2a.principals[1].role: expected one of operator, user, agent, got "admin"',
      ],
      [
        '    - {id: bob, role: user}\n',
        'a.yaml:6: a2a.principals[1].match: expected {bearer: "{{secret:NAME}}"} or {any: true}',
      ],
      ['    - {id: bob, role: user, match: {any: yes}}\n', 'a.yaml:6: a2a.principals[1].match.any: expected true'],
      [
        '    - {id: bob, role: user, match: {bearer: x, any: true}}\n',
        'a.yaml:6: a2a.principals[1].match: give bearer or any, not both',
      ],
      [
        '    - {id: bob, role: user, match: {token: x}}\n',
        'a.yaml:6: a2a.principals[1].match.token: unknown key (expected bearer, any)',
      ],
      [
        '    - {id: "b b", role: user, match: {any: true}}\n',
        'a.yaml:6: a2a.principals[1].id: an id may hold only letters, digits, _ . @ and -',
      ],
      [
        '    - {id: ok, role: user, match: {any: true}}\n',
        'a.yaml:6: a2a.principals[1].id: "ok" already names principals[0]',
      ],
      [
        '    - {id: bob, role: user, match: {any: true}, grant: [x]}\n',
        "a.yaml:6: a2a.principals[1].grant: unknown key (did you mean 'grants'?)",
      ],
      [
        '    - {id: bob, role: user, match: {any: true}, grants: ["*x"]}\n',
        'a.yaml:6: a2a.principals[1].grants[0]: expected a tool name, "*" or "prefix*"',
      ],
    ];
    for (const [entry, problem] of cases) assert.equal(at(entry), problem);
    assert.equal(
      errorOf('a2a:\n  principals:\n    - role: user\n      match:\n        bearer: "{{secret:NOPE}}"\n'),
      'a.yaml:3: a2a.principals[0]: expected an id',
    );
    assert.equal(
      errorOf('a2a:\n  principals:\n    - id: x\n      role: user\n      match:\n        bearer: "{{secret:NOPE}}"\n'),
      "a.yaml:6: a2a.principals[0].match.bearer: secret 'NOPE' not set in the environment",
    );
  });

  it('refuses a bearer under 16 characters and a model or MCP token under 8, naming the key and line', () => {
    // Premise: a bearer of "dev" was accepted, and a secret under 4 characters is never redacted.
    const principal = (bearer: string) =>
      `a2a:\n  principals:\n    - id: x\n      role: user\n      match:\n        bearer: ${bearer}\n`;
    assert.equal(
      errorOf(principal('dev')),
      'a.yaml:6: a2a.principals[0].match.bearer: too short (3 characters; at least 16)',
    );
    const fromEnv = errorOf(principal('"{{secret:T}}"'), { T: 'fifteen-chars-x' });
    assert.equal(fromEnv, 'a.yaml:6: a2a.principals[0].match.bearer: too short (15 characters; at least 16)');
    assert.ok(!fromEnv.includes('fifteen'), 'the value is never quoted');
    assert.equal(compileYaml(principal('sixteen-chars-xx')).a2a.principals[0]?.id, 'x');
    assert.equal(
      errorOf('intelligence:\n  token: short\n'),
      'a.yaml:2: intelligence.token: too short (5 characters; at least 8)',
    );
    assert.match(
      errorOf('mcp:\n  servers:\n    gh:\n      url: http://127.0.0.1:1/mcp\n      token: abc\n'),
      /^a\.yaml:\d+: mcp\.servers\.gh\.token: too short \(3 characters; at least 8\)$/,
    );
  });

  it('reads max_body_bytes as a positive integer', () => {
    assert.equal(compileYaml('a2a:\n  max_body_bytes: 65536\n').a2a.max_body_bytes, 65_536);
    assert.match(
      errorOf('a2a:\n  max_body_bytes: 0\n'),
      /^a\.yaml:2: a2a\.max_body_bytes: expected a positive integer/,
    );
  });

  it('reads the connection bounds and the card, with their defaults and checks', () => {
    const yaml = [
      'a2a:',
      '  max_connections: 64',
      '  header_timeout: 2s',
      '  body_timeout: 500ms',
      '  card: {name: desk, description: Answers questions}',
      '',
    ].join('\n');
    const a2a = compileYaml(yaml).a2a;
    assert.deepEqual([a2a.max_connections, a2a.header_timeout, a2a.body_timeout], [64, 2_000, 500]);
    assert.deepEqual(a2a.card, { name: 'desk', description: 'Answers questions' });
    assert.match(errorOf('a2a:\n  max_connections: 0\n'), /^a\.yaml:2: a2a\.max_connections: expected a positive/);
    assert.match(errorOf('a2a:\n  header_timeout: 10ms\n'), /^a\.yaml:2: a2a\.header_timeout: .*minimum of 100ms/);
    assert.match(errorOf('a2a:\n  card:\n    summary: x\n'), /a2a\.card\.summary/);
  });

  it('reads the feed and task retention keys, and refuses keeping no feed events', () => {
    const config = compileYaml(
      'a2a:\n  feed: {retain_events: 50, retain_age: 1h}\n  tasks: {retain: 0, retain_age: 2d}\n',
    );
    assert.deepEqual(config.a2a.feed, { retain_events: 50, retain_age: 3_600_000 });
    assert.deepEqual(config.a2a.tasks, { retain: 0, retain_age: 172_800_000 });
    assert.match(errorOf('a2a:\n  feed: {retain_events: 0}\n'), /a2a\.feed\.retain_events/);
  });

  it('documents every a2a key', () => {
    const paths = describeConfigKeys()
      .map((k) => k.path)
      .filter((p) => p.startsWith('a2a.'));
    assert.deepEqual(paths, [
      'a2a.listen',
      'a2a.tls',
      'a2a.principals',
      'a2a.max_body_bytes',
      'a2a.max_connections',
      'a2a.header_timeout',
      'a2a.body_timeout',
      'a2a.max_long_requests',
      'a2a.card.name',
      'a2a.card.description',
      'a2a.peers',
      'a2a.feed.retain_events',
      'a2a.feed.retain_age',
      'a2a.tasks.retain',
      'a2a.tasks.retain_age',
      'a2a.pairing.enabled',
      'a2a.pairing.role',
      'a2a.pairing.ttl',
      'a2a.origins',
    ]);
  });

  it('reads a2a.origins: exact browser origins, none by default, a bad one named with its key', () => {
    const listen = 'a2a:\n  listen: http://127.0.0.1:0\n';
    assert.deepEqual(compileYaml(listen).a2a.origins, []);
    const listed = compileYaml(`${listen}  origins: [https://ui.example.com, http://10.0.0.5:4173]\n`);
    assert.deepEqual(listed.a2a.origins, ['https://ui.example.com', 'http://10.0.0.5:4173']);
    assert.throws(
      () => compileYaml(`${listen}  origins: [https://ui.example.com/app]\n`),
      /a2a\.origins: expected an origin/,
    );
  });

  it('reads a2a.pairing: off and operator by default, a role of operator or user, and only with a listener', () => {
    const listen = 'a2a:\n  listen: http://127.0.0.1:0\n';
    assert.deepEqual(compileYaml(listen).a2a.pairing, { enabled: false, role: 'operator', ttl: 12 * 3_600_000 });
    const on = compileYaml(`${listen}  pairing: {enabled: true, role: user, ttl: 30m}\n`);
    assert.deepEqual(on.a2a.pairing, { enabled: true, role: 'user', ttl: 30 * 60_000 });
    assert.match(
      errorOf(`${listen}  pairing:\n    role: agent\n`),
      /a\.yaml:4: a2a\.pairing\.role: expected one of operator, user/,
    );
    assert.match(
      errorOf('a2a:\n  pairing:\n    enabled: true\n'),
      /a\.yaml:3: a2a\.pairing\.enabled: needs a2a\.listen/,
    );
  });

  it('reads a2a.pairing.ttl as a duration of at least a minute', () => {
    const listen = 'a2a:\n  listen: http://127.0.0.1:0\n';
    assert.match(errorOf(`${listen}  pairing:\n    ttl: forever\n`), /a\.yaml:4: a2a\.pairing\.ttl: /);
    assert.match(errorOf(`${listen}  pairing:\n    ttl: 10s\n`), /a\.yaml:4: a2a\.pairing\.ttl: .*minimum of 60000ms/);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses, bracketed and IPv4-mapped', () => {
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '::', '[::]', '10.0.0.1', '128.0.0.1', 'localhost.example.com', ''])
      assert.ok(!isLoopbackHost(host), host);
  });
});
