import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeOrigin, ownOrigin, preflightHeaders, sessionOrigin } from '../../../src/a2a/originGuard.js';
import { originListKind, originProblem } from '../../../src/config/pairingKeys.js';

const HOST = '127.0.0.1:8420';
const at = (origin: string | undefined, secure = false) => ({ origin, host: HOST, secure });

describe('origin guard (interfaces §2.2, case 9)', () => {
  it('knows the daemon’s own page by the host the request was sent to', () => {
    assert.equal(ownOrigin(at('http://127.0.0.1:8420')), true);
    assert.equal(ownOrigin(at('http://evil.example')), false);
    assert.equal(ownOrigin(at('http://127.0.0.1:8420', true)), false, 'scheme must match');
    assert.equal(ownOrigin(at(undefined)), false, 'no Origin is not the page');
  });

  it('lets a session cookie ride only the own page or a listed origin, never another loopback port', () => {
    assert.equal(sessionOrigin(at('http://127.0.0.1:8420'), []), true);
    assert.equal(sessionOrigin(at('https://agent.example.com'), ['https://agent.example.com']), true);
    assert.equal(sessionOrigin(at('http://127.0.0.1:3000'), []), false);
    assert.equal(sessionOrigin(at(undefined), ['https://agent.example.com']), false);
  });

  it('passes callers without an Origin and the own page, refuses an unlisted origin, CORS for the rest', () => {
    assert.deepEqual(judgeOrigin(at(undefined), []), { kind: 'plain' });
    assert.deepEqual(judgeOrigin(at('http://127.0.0.1:8420'), []), { kind: 'plain' });
    const refused = judgeOrigin(at('https://rebind.example'), []);
    assert.equal(refused.kind, 'refused');
    assert.match(refused.kind === 'refused' ? refused.reason : '', /^origin not allowed: https:\/\/rebind\.example/);
    assert.equal(judgeOrigin(at('null'), []).kind, 'refused');
    for (const loopback of ['http://localhost:5173', 'http://127.0.0.2:9', 'http://[::1]:4173']) {
      assert.deepEqual(judgeOrigin(at(loopback), []), {
        kind: 'cors',
        headers: { 'Access-Control-Allow-Origin': loopback, Vary: 'Origin' },
      });
    }
    assert.equal(judgeOrigin(at('https://ui.example.com'), ['https://ui.example.com']).kind, 'cors');
    assert.equal(judgeOrigin(at('https://ui.example.com:8443'), ['https://ui.example.com']).kind, 'refused');
  });

  it('grants Private Network Access in a preflight only when the browser asked for it', () => {
    const asked = { ...at('https://ui.example.com'), privateNetwork: 'true' };
    const verdict = judgeOrigin(asked, ['https://ui.example.com']);
    assert.equal(verdict.kind, 'cors');
    if (verdict.kind !== 'cors') return;
    const granted = preflightHeaders(asked, verdict);
    assert.equal(granted['Access-Control-Allow-Private-Network'], 'true');
    assert.equal(granted['Access-Control-Allow-Methods'], 'POST, GET, OPTIONS');
    assert.equal(granted['Access-Control-Max-Age'], '600');
    assert.match(granted['Access-Control-Allow-Headers'] ?? '', /authorization, last-event-id/);
    const plain = preflightHeaders({ ...asked, privateNetwork: undefined }, verdict);
    assert.equal(plain['Access-Control-Allow-Private-Network'], undefined);
  });

  it('accepts origins only as a browser writes them', () => {
    assert.equal(originProblem('https://ui.example.com'), null);
    assert.equal(originProblem('http://10.0.0.5:4173'), null);
    for (const bad of ['https://ui.example.com/', 'https://ui.example.com/ui', 'ftp://x', 'https://a@b.example', 'x']) {
      assert.match(originProblem(bad) ?? '', /expected an origin http\(s\):\/\/HOST\[:PORT\]/, bad);
    }
    assert.deepEqual(originListKind().fromText?.('https://a.example, http://b.example:81'), {
      ok: true,
      value: ['https://a.example', 'http://b.example:81'],
    });
    assert.equal(originListKind().fromYaml(['https://a.example/x']).ok, false);
  });
});
