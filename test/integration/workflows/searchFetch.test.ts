// search.fetch over the real engine, SQLite and a real HTTP server (producers reference §2.4): a public page's text
// cut at max_bytes; a host resolving to a private address refused (there is no allow_private); a bad status fails.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { around, openDesk, runToEnd, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
let n = 0;
const server = createServer((req, res) => {
  if (req.url === '/missing') {
    res.writeHead(404).end('no');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end('0123456789'.repeat(10));
});
let port = 0;
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise((r) => server.close(r));
  tmp.remove();
});

/** A public name (by the stub resolver) whose requests the fetch port sends to the local server. */
const toLocal: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  url.host = `127.0.0.1:${port}`;
  url.protocol = 'http:';
  return fetch(url, init);
};

async function fetchStep(step: Record<string, unknown>, lookup: string) {
  const life = await openDesk(`${tmp.dir}/life-${++n}`, [around({ kind: 'search.fetch', ...step })], {
    fetch: toLocal,
    ports: { lookup: async () => [lookup] },
  });
  try {
    return await runToEnd(life);
  } finally {
    await life.close();
  }
}

describe('search.fetch', () => {
  it('keeps the text up to max_bytes from a public host', async () => {
    const run = await fetchStep({ url: 'https://docs.example/page', max_bytes: 25 }, '93.184.216.34');
    assert.equal(run.status, 'completed', String(run.error));
    assert.deepEqual(run.output, {
      url: 'https://docs.example/page',
      status: 200,
      content_type: 'text/plain',
      content: '0123456789012345678901234',
      bytes: 25,
      truncated: true,
    });
  });

  it('refuses a private address and fails on a non-2xx status', async () => {
    const private_ = await fetchStep({ url: 'https://docs.example/page' }, '10.0.0.7');
    assert.equal(
      private_.error,
      'step "x" failed: search.fetch: docs.example resolves to a private address (10.0.0.7)',
    );
    const missing = await fetchStep({ url: 'https://docs.example/missing' }, '93.184.216.34');
    assert.equal(missing.error, 'step "x" failed: search.fetch: http status 404');
  });

  it('refuses a bad max_bytes at load', () => {
    const bad = loadWorkflow(around({ kind: 'search.fetch', url: 'https://a.example', max_bytes: 0 }));
    assert.deepEqual(bad.ok ? [] : bad.errors, [
      'workflow "w" step "x": search.fetch.max_bytes must be a positive integer (got 0)',
    ]);
  });
});
