// Integration kinds inside real runs over a real SQLite store (producers reference §2.8 `http`, `mcp.tool`):
// a real local HTTP server / MCP server on the other side, the request and the key as the callee saw them.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { idempotencyKey } from '../../../src/workflows/stepExecution.js';
import { openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const status = req.url?.startsWith('/status/') ? Number(req.url.slice(8)) : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: body === '' ? null : JSON.parse(body) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  tmp.remove();
});

const httpFlow = (step: Record<string, unknown>) => ({
  name: 'w',
  steps: {
    s: { kind: 'once' },
    h: { kind: 'http', depends_on: 's', ...step },
    f: { kind: 'finish', depends_on: 'h', output: 'CEL: steps.h.output' },
  },
});

async function runOnce(doc: unknown) {
  const life = await openDesk(freshDir(), [doc]);
  const [run] = await life.desk.fireOnce();
  assert.ok(run);
  const done = await settled(life, run.id);
  await life.close();
  return done;
}

describe('http step', () => {
  it('POSTs the JSON body with the step key in Idempotency-Key and outputs {status, ok, headers, body, json}', async () => {
    seen.length = 0;
    const done = await runOnce(
      httpFlow({ url: `${base}/post`, method: 'post', json: { a: '{{run.id}}' }, allow_private: true }),
    );
    assert.equal(done.status, 'completed', done.error ?? '');
    const out = done.output as { status: number; ok: boolean; json: { echo: { a: string } } };
    assert.equal(out.status, 200);
    assert.equal(out.ok, true);
    assert.deepEqual(out.json.echo, { a: done.id });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.method, 'POST');
    assert.equal(seen[0]?.headers['idempotency-key'], idempotencyKey(done.id, 'h'));
  });

  it('puts the key in the named query parameter when idempotency names one', async () => {
    seen.length = 0;
    const done = await runOnce(
      httpFlow({ url: `${base}/q`, query: { x: 1 }, idempotency: { query: 'key', value: 'k1' }, allow_private: true }),
    );
    assert.equal(done.status, 'completed', done.error ?? '');
    assert.equal(seen[0]?.url, '/q?x=1&key=k1');
    assert.equal(seen[0]?.headers['idempotency-key'], undefined);
  });

  it('refuses a private address without allow_private, and the server never sees the request', async () => {
    // Premise: the same server answers the first test, where allow_private is set.
    seen.length = 0;
    const done = await runOnce(httpFlow({ url: `${base}/private` }));
    assert.equal(done.status, 'failed');
    assert.match(done.steps['h']?.error ?? '', /resolves to a private address \(127\.0\.0\.1\); set allow_private/);
    const byName = await runOnce(httpFlow({ url: `http://service.example:1/` }));
    assert.match(byName.steps['h']?.error ?? '', /service\.example:1 resolves to a private address/);
    assert.equal(seen.length, 0);
  });

  it('fails on a status outside 200..399 unless expect lists it', async () => {
    const failedRun = await runOnce(httpFlow({ url: `${base}/status/503`, allow_private: true }));
    assert.equal(failedRun.steps['h']?.error, 'http status 503');
    const expected = await runOnce(httpFlow({ url: `${base}/status/404`, expect: [404], allow_private: true }));
    assert.equal(expected.status, 'completed', expected.error ?? '');
    assert.equal((expected.output as { status: number }).status, 404);
  });

  it('refuses a malformed http.sign and a malformed idempotency at load', async () => {
    await assert.rejects(
      openDesk(freshDir(), [httpFlow({ url: base, sign: { kind: 'aws' } })]),
      /http\.sign: unknown field "kind".*http\.sign\.key must be one \{\{secret:NAME\}\} reference/,
    );
    await assert.rejects(
      openDesk(freshDir(), [httpFlow({ url: base, idempotency: { header: 'a', query: 'b' } })]),
      /exactly one of header or query/,
    );
  });
});
