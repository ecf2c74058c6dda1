// Clients that hold descriptors without asking anything (issue 13 item 1): a flood of idle connections is capped
// and closed, a head or a body that never completes is cut, and an authenticated client is still served.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitUntil, within } from '../wait.js';
import { JSON_V1, type Running, rawRequest, rpc, startListener } from './listenerHarness.js';

const TOKEN = 'flood-test-token-1234';
const YAML = `  max_connections: 20
  header_timeout: 600ms
  body_timeout: 600ms
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}
`;
const FLOOD = 60;

interface Idle {
  socket: Socket;
  closed: boolean;
}

/** Opens `count` TCP connections to `port` that never send a byte; resolves once each is connected or closed. */
async function flood(port: number, count: number): Promise<Idle[]> {
  const idle: Idle[] = [];
  await Promise.all(
    Array.from({ length: count }, () => {
      const socket = connect(port, '127.0.0.1');
      const entry: Idle = { socket, closed: false };
      idle.push(entry);
      socket.on('error', () => {});
      return new Promise<void>((resolve) => {
        socket.once('connect', () => resolve());
        socket.once('close', () => {
          entry.closed = true;
          resolve();
        });
      });
    }),
  );
  return idle;
}

/** Writes one keep-alive request on `socket` and resolves with the status of the complete response. */
function exchange(socket: Socket, body: string): Promise<number> {
  const head = ['POST / HTTP/1.1', 'Host: localhost', 'Connection: keep-alive', `Authorization: Bearer ${TOKEN}`];
  const headers = [...head, ...Object.entries(JSON_V1).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${headers.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  let text = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      text += chunk.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (end < 0 || !length || Buffer.byteLength(text) < end + 4 + Number(length[1])) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(Number(text.slice(9, 12)));
    };
    const onClose = (): void => reject(new Error('the kept-alive connection was closed'));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/** A self-signed certificate for 127.0.0.1 in a fresh directory, or null without openssl. */
function selfSigned(): { cert: string; key: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-flood-tls-'));
  const files = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'];
  try {
    execFileSync('openssl', [...args, '-keyout', files.key, '-out', files.cert], { stdio: 'ignore' });
    return files;
  } catch {
    return null;
  }
}

const openOf = (idle: Idle[]) => idle.filter((c) => !c.closed).length;
const portOf = (url: string) => Number(new URL(url).port);
const hello = rpc('SendMessage', {
  message: { messageId: 'm', parts: [{ text: 'hi' }] },
  configuration: { returnImmediately: true },
});

describe('A2aListener under a connection flood', { timeout: 30_000 }, () => {
  let running: Running;
  before(async () => {
    running = await startListener(YAML, { ALICE_TOKEN: TOKEN });
  });
  after(() => running.close());

  it('premise: a plain node server keeps idle connections open past the header timeout', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const idle = await flood((server.address() as AddressInfo).port, FLOOD);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(openOf(idle), FLOOD, 'every idle connection is still open');
      for (const c of idle) c.socket.destroy();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('caps idle connections, closes them after the header timeout and still serves a client', async () => {
    const idle = await flood(portOf(running.listener.url), FLOOD);
    await waitUntil(() => openOf(idle) <= 20, 5_000, 'the flood is cut to a2a.max_connections');
    // A client that sends its head takes the place of an idle connection: the flood cannot lock it out.
    const served = await within(
      rawRequest(running.listener.url, hello, { ...JSON_V1, Authorization: `Bearer ${TOKEN}` }),
      5_000,
      'an authenticated request during the flood',
    );
    assert.equal(served.status, 200);
    assert.equal((served.json()['result'] as { task: { id: string } }).task.id.length > 0, true);
    await waitUntil(() => openOf(idle) === 0, 5_000, 'idle connections are closed after a2a.header_timeout');
    const shed = running.events.filter((e) => e['event'] === 'a2a.connection.shed');
    assert.ok(shed.length >= 1, 'the shedding is logged');
    assert.ok(shed.length < FLOOD / 2, 'in bursts, not one line per connection');
  });

  it('keeps a served kept-alive client through a sustained flood: never-answered connections go first', async () => {
    const port = portOf(running.listener.url);
    const client = connect(port, '127.0.0.1');
    client.on('error', () => {});
    await new Promise((resolve) => client.once('connect', resolve));
    assert.equal(await within(exchange(client, hello), 5_000, 'the first request'), 200);
    // Premise: the client's last activity (its response's end) is older than every flood socket, so an
    // oldest-idle-first eviction closes it at the first wave and the second request below is rejected.
    const waves = [await flood(port, FLOOD), await flood(port, FLOOD)];
    await waitUntil(() => openOf(waves.flat()) <= 20, 5_000, 'the flood is cut to a2a.max_connections');
    assert.equal(await within(exchange(client, hello), 5_000, 'the second request on the same socket'), 200);
    client.destroy();
    for (const c of waves.flat()) c.socket.destroy();
  });

  it('closes a connection whose request head never completes', async () => {
    const socket = connect(portOf(running.listener.url), '127.0.0.1');
    let closed = false;
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
    });
    socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n');
    await waitUntil(() => closed, 5_000, 'a half-sent head is cut');
  });

  it('answers HTTP 408 to a body that does not arrive in a2a.body_timeout, and closes the connection', async () => {
    const socket = connect(portOf(running.listener.url), '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
    });
    const head = [
      'POST / HTTP/1.1',
      'Host: localhost',
      'Content-Type: application/json',
      'A2A-Version: 1.0',
      `Authorization: Bearer ${TOKEN}`,
      'Content-Length: 500',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n{"jsonrpc":`);
    await waitUntil(() => closed, 5_000, 'the slow body is cut');
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /"code":-32600/);
    const logged = running.events.find((e) => e['event'] === 'a2a.request' && e['outcome'] === 'timeout');
    assert.equal(logged?.['principal'], 'user:alice');
  });
});

const TLS = selfSigned();

describe('A2aListener over https under a connection flood', { timeout: 30_000, skip: !TLS && 'no openssl' }, () => {
  let running: Running;
  before(async () => {
    const tls = TLS ?? { cert: '', key: '' };
    const yaml = `a2a:\n  listen: https://127.0.0.1:0\n  tls: {cert: ${tls.cert}, key: ${tls.key}}\n`;
    running = await startListener(`${yaml}${YAML.replace('header_timeout: 600ms', 'header_timeout: 4s')}`, {
      ALICE_TOKEN: TOKEN,
    });
  });
  after(() => running.close());

  it('caps raw sockets before their TLS handshake and still serves a client', async () => {
    const idle = await flood(portOf(running.listener.url), FLOOD);
    // Premise: counted at `secureConnection`, sockets that never shake hands count 0 and all stay open until
    // the handshake timeout (4 s here); counted from TCP accept, the cap cuts them at once.
    await waitUntil(() => openOf(idle) <= 20, 1_500, 'the flood is cut to a2a.max_connections before 4 s');
    const status = await within(
      new Promise<number>((resolve, reject) => {
        const headers = { ...JSON_V1, Authorization: `Bearer ${TOKEN}` };
        const req = httpsRequest(
          running.listener.url,
          { method: 'POST', headers, rejectUnauthorized: false },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(hello);
      }),
      5_000,
      'an authenticated https request during the flood',
    );
    assert.equal(status, 200);
    await waitUntil(() => openOf(idle) === 0, 8_000, 'silent sockets are closed after a2a.header_timeout');
  });
});
