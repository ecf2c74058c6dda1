// Browser callers and the origin guard (issue 18, interfaces §2.2 and §5 case 9): an unlisted Origin gets 403, a
// listed (or loopback) one gets CORS, its preflight the Private Network Access grant only when asked; on a loopback
// listener a foreign Host (DNS rebinding) is refused even with no Origin. In Chromium: a page on another origin can
// neither call the daemon nor sign in to its web UI through a proxy (which shows the `a2a.origins` snippet) until the
// origin is listed and the daemon restarted; then both work.
// Chromium 156 no longer sends PNA preflights (Local Network Access asks the user instead), so the grant is checked
// over raw HTTP, with the headers a PNA browser sends.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { firstPage, launchBrowser } from './browser.js';

const TOKEN = 'ops-origin-token-1';
const WAIT = { timeout: 20_000 };
const STATUS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} });

/** A raw request (fetch cannot set Host), answered with its status, headers and body. */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${url}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

describe('origin guard and Private Network Access', { timeout: 240_000 }, () => {
  let model: ScriptedModel;
  let dir: string;
  let daemon: Daemon;
  const yaml = (origins: string[]) =>
    [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      `  principals: [{id: ops, role: operator, match: {bearer: ${TOKEN}}}]`,
      ...(origins.length > 0 ? [`  origins: [${origins.join(', ')}]`] : []),
      'intelligence:',
      `  endpoints: ${model.url}`,
      '',
    ].join('\n');
  const rpc = (headers: Record<string, string>) =>
    raw(
      daemon.url,
      'POST',
      { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}`, ...headers },
      STATUS,
    );

  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'reply through the proxy' }] });
    dir = tempStateDir();
    daemon = await startDaemon(dir, yaml([]));
  });
  after(async () => {
    await daemon?.stop();
    await model?.close();
  });

  it('over raw HTTP: refuses an unlisted origin and a rebinding Host, grants loopback pages CORS and PNA on request', async () => {
    const evil = await rpc({ origin: 'https://rebind.example' });
    assert.equal(evil.status, 403);
    assert.match(evil.body, /origin not allowed: https:\/\/rebind\.example \(list it in a2a\.origins\)/);
    const evilPreflight = await raw(daemon.url, 'OPTIONS', { origin: 'https://rebind.example' });
    assert.equal(evilPreflight.status, 403);
    assert.equal(evilPreflight.headers['access-control-allow-origin'], undefined);
    // A rebinding page's same-origin GET carries no Origin, only its own Host.
    const port = new URL(daemon.url).port;
    const rebound = await raw(`${daemon.url}/.well-known/agent-card.json`, 'GET', { host: `rebind.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /host not allowed: rebind\.example/);
    assert.equal((await raw(`${daemon.url}/ui`, 'GET', { host: `rebind.example:${port}` })).status, 403);
    assert.equal((await raw(`${daemon.url}/ui`, 'GET', { host: `localhost:${port}` })).status, 200);

    const page = 'http://localhost:5173';
    const preflight = await raw(daemon.url, 'OPTIONS', {
      origin: page,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
      'access-control-request-private-network': 'true',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], page);
    assert.equal(preflight.headers['access-control-allow-methods'], 'POST, GET, OPTIONS');
    assert.match(
      String(preflight.headers['access-control-allow-headers']),
      /content-type, authorization, last-event-id/,
    );
    assert.equal(preflight.headers['access-control-max-age'], '600');
    assert.equal(preflight.headers['access-control-allow-private-network'], 'true');
    const unasked = await raw(`${daemon.url}/feed`, 'OPTIONS', {
      origin: page,
      'access-control-request-method': 'GET',
    });
    assert.equal(unasked.status, 204);
    assert.equal(unasked.headers['access-control-allow-private-network'], undefined, 'no PNA grant unless asked');
    const call = await rpc({ origin: page });
    assert.equal(call.status, 200, call.body);
    assert.equal(call.headers['access-control-allow-origin'], page);
    assert.ok('result' in JSON.parse(call.body), call.body);
    const audited = daemon.events.filter((e) => e.event === 'a2a.request').map((e) => e.outcome);
    assert.ok(audited.includes('origin_refused') && audited.includes('host_refused'), JSON.stringify(audited));
  });

  describe('in Chromium, a page on another origin', () => {
    let browser: BrowserContext;
    let page: Page;
    let proxy: Server;
    let origin = '';
    before(async () => {
      // The other origin: a hosted client page, and the daemon's /ui behind a proxy that sets Host to the daemon's
      // (as nginx does by default).
      proxy = createServer((req, res) => {
        if (req.url === '/hosted') {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>hosted client</title>');
          return;
        }
        const target = new URL(daemon.url);
        const forward = request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => res.writeHead(502).end());
        req.pipe(forward);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      origin = `http://ui.example.test:${(proxy.address() as AddressInfo).port}`;
      browser = await launchBrowser(['--host-resolver-rules=MAP ui.example.test 127.0.0.1']);
      page = await firstPage(browser, []);
    });
    after(async () => {
      await browser?.close();
      proxy?.closeAllConnections();
      await new Promise((resolve) => proxy?.close(resolve));
    });

    /** The hosted page's own call to the daemon, as a third-party client makes it (bearer, CORS). */
    const hostedCall = (): Promise<string> =>
      page.evaluate(
        async ([url, token, body]) => {
          try {
            const res = await fetch(url as string, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
              body: body as string,
            });
            return `${res.status} ${Object.keys(((await res.json()) as object) ?? {}).join(',')}`;
          } catch (err) {
            return `failed: ${(err as Error).name}`;
          }
        },
        [daemon.url, TOKEN, STATUS],
      );

    it('is refused until its origin is listed, with the snippet shown; after a restart it connects', async () => {
      await page.goto(`${origin}/hosted`);
      assert.equal(await hostedCall(), 'failed: TypeError', 'the 403 preflight blocks the call');
      await page.goto(`${origin}/ui`);
      await page.getByLabel('Access token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: `a2a: {origins: ["${origin}"]}` })
        .waitFor(WAIT);

      await daemon.stop();
      daemon = await startDaemon(dir, yaml([origin]));
      await page.goto(`${origin}/hosted`);
      assert.equal(await hostedCall(), '200 jsonrpc,id,result');
      await page.goto(`${origin}/ui`);
      await page.getByLabel('Access token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('● live').waitFor(WAIT);
      await page.getByLabel('Message').fill('hello from another origin');
      await page.getByLabel('Message').press('Enter');
      // Plain http on a foreign name is not a secure context: the page's ids must not need crypto.randomUUID.
      assert.equal(await page.evaluate(() => (globalThis as { isSecureContext?: boolean }).isSecureContext), false);
      await page.locator('.row.agent', { hasText: 'reply through the proxy' }).waitFor(WAIT);
    });
  });
});
