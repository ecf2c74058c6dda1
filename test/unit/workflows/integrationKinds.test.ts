// Load-time checks of the integration kinds (producers reference §2.3, §2.4): every refusal names the workflow,
// the step and the field; and the a2a.peers config key's shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peersKind } from '../../../src/config/peerKeys.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { partsOf } from '../../../src/workflows/kinds/a2aKinds.js';
import { compileError, compileIn, tempDir, writeConfig } from '../config/configFiles.js';

function errors(step: Record<string, unknown>): string[] {
  const got = loadWorkflow({
    name: 'w',
    steps: { s: { kind: 'once' }, v: { depends_on: 's', ...step }, f: { kind: 'finish', depends_on: 'v' } },
  });
  return got.ok ? [] : got.errors;
}
const at = (text: string): string => `workflow "w" step "v": ${text}`;

describe('integration kinds at load', () => {
  it('workflow.signal / wait / cancel: required fields and non-empty strings', () => {
    assert.deepEqual(errors({ kind: 'workflow.signal', name: 'go', payload: { a: 1 } }), []);
    assert.deepEqual(errors({ kind: 'workflow.signal' }), [at('kind "workflow.signal" requires field "name"')]);
    assert.deepEqual(errors({ kind: 'workflow.signal', name: '' }), [
      at('workflow.signal.name must be a non-empty string'),
    ]);
    assert.deepEqual(errors({ kind: 'workflow.wait', run: 'r', timeout: '5s' }), []);
    assert.deepEqual(errors({ kind: 'workflow.wait', run: 7 }), [at('workflow.wait.run must be a non-empty string')]);
    assert.deepEqual(errors({ kind: 'workflow.cancel' }), [at('kind "workflow.cancel" requires field "run"')]);
    assert.deepEqual(errors({ kind: 'workflow.cancel', run: 'r', force: true }), [
      at('unknown field "force" for kind "workflow.cancel" (allowed: run, reason)'),
    ]);
  });

  it('emit: at least one field; a metric name', () => {
    assert.deepEqual(errors({ kind: 'emit', note: 'hi', metric: 'seen_total' }), []);
    assert.deepEqual(errors({ kind: 'emit' }), [at('emit needs at least one of note, audit, metric or value')]);
    assert.deepEqual(errors({ kind: 'emit', metric: 'has space' }), [
      at('emit.metric must be a metric name ([a-zA-Z_][a-zA-Z0-9_.:-]*, ≤ 64 chars)'),
    ]);
  });

  it('mcp.resource: op, and the fields of that op only', () => {
    assert.deepEqual(errors({ kind: 'mcp.resource', server: 'kb', op: 'read', uri: 'x://y' }), []);
    assert.deepEqual(errors({ kind: 'mcp.resource', server: 'kb', op: 'list' }), []);
    assert.deepEqual(errors({ kind: 'mcp.resource', server: 'kb', op: 'write' }), [
      at('mcp.resource.op must be one of read|list|prompt|complete'),
    ]);
    assert.deepEqual(errors({ kind: 'mcp.resource', server: 'kb', op: 'read' }), [
      at('mcp.resource op: read needs uri'),
    ]);
    assert.deepEqual(errors({ kind: 'mcp.resource', server: 'kb', op: 'list', uri: 'x://y' }), [
      at('mcp.resource.uri does not apply to op: list'),
    ]);
    assert.deepEqual(
      errors({ kind: 'mcp.resource', server: 'kb', op: 'complete', reference: { name: 'p' }, argument: { name: 'a' } }),
      [
        at('mcp.resource.reference must be {type: ref/prompt, name} or {type: ref/resource, uri}'),
        at('mcp.resource.argument must be {name, value} (strings)'),
      ],
    );
  });

  it('a2a.send / a2a.delegate: a peer, parts, idempotency', () => {
    assert.deepEqual(errors({ kind: 'a2a.send', to: 'b', parts: 'hi', idempotency: { value: 'k' } }), []);
    assert.deepEqual(errors({ kind: 'a2a.send', to: 'b' }), [
      at('a2a.send needs parts (a text, or a list of {text} / {data} parts)'),
    ]);
    assert.deepEqual(errors({ kind: 'a2a.send', to: 'b', parts: [{ file: 'x' }] }), [
      at('a2a.send.parts must be a text, or a list of {text} / {data} parts'),
    ]);
    assert.deepEqual(errors({ kind: 'a2a.delegate', peer: '', objective: 'o', idempotency: { header: 'x' } }), [
      at('a2a.delegate.peer must name a peer of a2a.peers'),
      at('a2a.delegate.idempotency must be true or {value}'),
    ]);
  });

  it('partsOf: a text is one part; {text}/{data} lists as given; anything else is malformed', () => {
    assert.deepEqual(partsOf('hi'), [{ text: 'hi' }]);
    assert.deepEqual(partsOf({ data: { a: 1 } }), [{ data: { a: 1 } }]);
    assert.deepEqual(partsOf([{ text: 'a' }, { data: null }]), [{ text: 'a' }, { data: null }]);
    assert.equal(partsOf([]), null);
    assert.equal(partsOf([{ text: 'a', data: 1 }]), null);
    assert.equal(partsOf(3), null);
  });
});

describe('a2a.peers', () => {
  const read = (v: unknown) => peersKind().fromYaml(v);
  it('reads {url, bearer, allow_private} by name; allow_private defaults to false', () => {
    assert.deepEqual(read({ b: { url: 'http://127.0.0.1:9' } }), {
      ok: true,
      value: { b: { url: 'http://127.0.0.1:9', bearer: null, allow_private: false } },
    });
  });
  it('refuses a bad url, an unknown key and a bad allow_private, naming the place', () => {
    assert.deepEqual(read({ b: { url: 'ftp://x' } }), {
      ok: false,
      problem: 'expected an http(s) URL, got "ftp://x"',
      at: ['b', 'url'],
    });
    const unknown = read({ b: { url: 'http://x', allowprivate: true } });
    assert.ok(!unknown.ok && unknown.at?.join('.') === 'b.allowprivate');
    assert.deepEqual(read({ b: { url: 'http://x', allow_private: 'yes' } }), {
      ok: false,
      problem: 'expected true or false',
      at: ['b', 'allow_private'],
    });
  });
});

describe('a configured workflow reaching a peer or server', () => {
  const yaml = (peers: string) => `a2a:
  peers: {${peers}}
workflows:
  - name: w
    steps:
      s: {kind: once}
      d: {kind: a2a.delegate, depends_on: s, peer: b, objective: o}
      t: {kind: a2a.send, depends_on: d, to: "{{inputs.peer}}", parts: hi}
      r: {kind: mcp.resource, depends_on: t, server: kb, op: list}
      f: {kind: finish, depends_on: r}
`;
  it('refuses a literal peer absent from a2a.peers and a server absent from mcp.servers; templates pass', () => {
    const dir = tempDir();
    assert.equal(
      compileError(dir, { files: [writeConfig(dir, 'a.yaml', yaml(''))] }),
      'workflow "w" step "d": peer "b" is not in a2a.peers (configured: none); ' +
        'workflow "w" step "r": server "kb" is not in mcp.servers (configured: none)',
    );
    const withPeer = writeConfig(
      dir,
      'b.yaml',
      `${yaml('b: {url: "http://peer.example"}')}mcp:\n  servers:\n    kb: {command: x}\n`,
    );
    assert.equal(compileIn(dir, { files: [withPeer] }).workflows[0]?.name, 'w');
  });
});
