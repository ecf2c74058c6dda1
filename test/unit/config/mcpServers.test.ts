import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeConfigKeys } from '../../../src/config/compile.js';
import { splitWords } from '../../../src/config/mcpServers.js';
import { createLogger } from '../../../src/obs/log.js';
import { knownSecrets } from '../../../src/obs/redactor.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const SERVERS = [
  'mcp:',
  '  servers:',
  '    gh:',
  '      url: https://mcp.example.test/mcp',
  '      token: "{{secret:GH_TOKEN}}"',
  '      headers: {X-Org: "{{secret:ORG}}"}',
  '    fs:',
  '      command: npx',
  '      args: [-y, server-fs, --port, 8080]',
  '      env: {ROOT: /data, KEY: "{{secret:FS_KEY}}"}',
  '      cwd: /srv',
  '    bare: {command: ./server}',
].join('\n');

describe('mcp.servers', () => {
  it('reads http and stdio servers with their defaults and resolves secrets in token, headers and env', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', SERVERS);
    const env = { GH_TOKEN: 'ghp-secret-1234', ORG: 'org-77', FS_KEY: 'fs-key-999' };
    assert.deepEqual(compileIn(dir, { files: [file], env }).mcp.servers, {
      gh: { url: 'https://mcp.example.test/mcp', headers: { 'X-Org': 'org-77' }, token: 'ghp-secret-1234' },
      fs: {
        command: 'npx',
        args: ['-y', 'server-fs', '--port', '8080'],
        env: { ROOT: '/data', KEY: 'fs-key-999' },
        cwd: '/srv',
      },
      bare: { command: './server', args: [], env: {}, cwd: null },
    });
  });

  it('reads optional tags per server and refuses an unknown tag, naming the server', () => {
    const dir = tempDir();
    const yaml = 'mcp:\n  servers:\n    web: {url: "http://x.test", tags: [untrusted_content, external_comms]}\n';
    const servers = compileIn(dir, { files: [writeConfig(dir, 'a.yaml', yaml)] }).mcp.servers;
    assert.deepEqual(servers.web?.tags, ['untrusted_content', 'external_comms']);
    const bad = writeConfig(dir, 'b.yaml', 'mcp:\n  servers:\n    web: {command: ./s, tags: [secret]}\n');
    assert.match(compileError(dir, { files: [bad] }), /mcp\.servers\.web\.tags: unknown tag "secret"/);
  });

  it('registers a resolved token for redaction', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'mcp: {servers: {gh: {url: "http://x.test", token: plain-mcp-token-1}}}\n');
    compileIn(dir, { files: [file] });
    const lines: string[] = [];
    createLogger({ write: (line) => lines.push(line) }).info('loop.error', { t: 'plain-mcp-token-1' });
    assert.ok(!lines[0]?.includes('plain-mcp-token-1'), lines[0]);
  });

  it('registers literal credential headers and secret-sourced env values, never ordinary header or env values', () => {
    // Premise: every header and env value was registered, so `LOG_LEVEL: warn` made answers read "I must [redacted]".
    const dir = tempDir();
    const yaml = [
      'mcp:',
      '  servers:',
      '    web: {url: "http://x.test", headers: {Authorization: Bearer literal-mcp-cred-9, X-Speaker: assistant}}',
      '    local: {command: ./server, env: {LOG_LEVEL: warn, API_KEY: "{{secret:LOCAL_KEY}}"}}',
    ].join('\n');
    compileIn(dir, { files: [writeConfig(dir, 'a.yaml', yaml)], env: { LOCAL_KEY: 'local-secret-5151' } });
    const known = knownSecrets();
    assert.ok(known.includes('Bearer literal-mcp-cred-9'), 'a literal credential header, as the worker registers it');
    assert.ok(known.includes('local-secret-5151'), 'an env value from a secret');
    assert.ok(!known.includes('warn') && !known.includes('assistant'), 'configuration is not a credential');
  });

  it('names file:line and the closest key for an unknown key inside a server', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'mcp:\n  servers:\n    fs:\n      comand: npx\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      "a.yaml:4: mcp.servers.fs.comand: unknown key (did you mean 'command'?)",
    );
  });

  it('requires exactly one of url and command', () => {
    const dir = tempDir();
    const both = writeConfig(dir, 'both.yaml', 'mcp:\n  servers:\n    x: {url: "http://a.test", command: y}\n');
    assert.equal(compileError(dir, { files: [both] }), 'both.yaml:3: mcp.servers.x: give url or command, not both');
    const neither = writeConfig(dir, 'neither.yaml', 'mcp:\n  servers:\n    x: {headers: {}}\n');
    assert.equal(
      compileError(dir, { files: [neither] }),
      'neither.yaml:3: mcp.servers.x: expected url (Streamable HTTP) or command (stdio)',
    );
  });

  it('refuses keys of the other transport, bad URLs, bad names and bad value types', () => {
    const dir = tempDir();
    const cases: [string, string][] = [
      ['x: {url: "http://a.test", args: [a]}', 'mcp.servers.x.args: only for a command server'],
      ['x: {command: y, token: t}', 'mcp.servers.x.token: only for a url server'],
      ['x: {url: "ftp://a.test"}', 'mcp.servers.x.url: expected an http:// or https:// URL'],
      ['"a b": {command: y}', 'mcp.servers.a b: a server name may hold only letters, digits, _ and -'],
      ['x: {command: y, args: [{a: 1}]}', 'mcp.servers.x.args[0]: expected a string, got a mapping'],
      ['x: {command: y, env: [a]}', 'mcp.servers.x.env: expected a mapping, got a list'],
      ['x: 5', 'mcp.servers.x: expected a mapping with url or command, got a number'],
    ];
    for (const [server, problem] of cases) {
      const file = writeConfig(dir, 'a.yaml', `mcp:\n  servers:\n    ${server}\n`);
      assert.equal(compileError(dir, { files: [file] }), `a.yaml:3: ${problem}`);
    }
  });

  it('names a missing secret at its place', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', SERVERS);
    assert.equal(
      compileError(dir, { files: [file], env: { ORG: 'o', FS_KEY: 'k' } }),
      "a.yaml:5: mcp.servers.gh.token: secret 'GH_TOKEN' not set in the environment",
    );
  });

  it('takes --mcp servers: a URL is http, anything else a command split like a shell would', () => {
    const config = compileIn(tempDir(), {
      flags: { mcp: ['web=https://mcp.test/mcp', `fs=npx -y "@scope/server fs" --root='/my dir'`] },
    });
    assert.deepEqual(config.mcp.servers, {
      web: { url: 'https://mcp.test/mcp', headers: {}, token: null },
      fs: { command: 'npx', args: ['-y', '@scope/server fs', '--root=/my dir'], env: {}, cwd: null },
    });
  });

  it('lets a --mcp server replace a file server of the same name and keeps the others', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', SERVERS);
    const env = { GH_TOKEN: 't-1234', ORG: 'o', FS_KEY: 'k' };
    const servers = compileIn(dir, { files: [file], env, flags: { mcp: ['gh=node ./gh.js'] } }).mcp.servers;
    assert.deepEqual(servers['gh'], { command: 'node', args: ['./gh.js'], env: {}, cwd: null });
    assert.deepEqual(Object.keys(servers).sort(), ['bare', 'fs', 'gh']);
  });

  it('names --mcp for a malformed value', () => {
    const cases: [string, string][] = [
      ['no-equals', '--mcp: mcp.servers: expected NAME=URL or NAME="command args"'],
      ['=http://a.test', '--mcp: mcp.servers: expected NAME=URL or NAME="command args"'],
      ['x=', '--mcp: mcp.servers.x: expected NAME=URL or NAME="command args"'],
      ['bad name=cmd', '--mcp: mcp.servers: a server name may hold only letters, digits, _ and -'],
      ['x=ftp://a.test', '--mcp: mcp.servers.x: expected an http:// or https:// URL'],
      ['x=npx "unclosed', '--mcp: mcp.servers.x: unterminated double quote'],
    ];
    for (const [value, message] of cases) assert.equal(compileError(tempDir(), { flags: { mcp: [value] } }), message);
  });

  it('is not settable from the environment and is described with its flag', () => {
    const dir = tempDir();
    assert.deepEqual(compileIn(dir, { env: { AGENTD_MCP_SERVERS: 'x=y' } }).mcp.servers, {});
    const doc = describeConfigKeys().find((key) => key.path === 'mcp.servers');
    assert.deepEqual(doc && [doc.default, doc.env, doc.flag], ['{}', null, '--mcp']);
  });
});

describe('splitWords', () => {
  it('splits on whitespace and groups quotes', () => {
    assert.deepEqual(splitWords('  a  b\t"c d" \'e "f"\' g""  ', []), ['a', 'b', 'c d', 'e "f"', 'g']);
    assert.deepEqual(splitWords('""', []), ['']);
    assert.deepEqual(splitWords('', []), []);
  });
});
