// Clients that hold descriptors without asking anything (issue 13 item 1): a flood of idle connections is capped
// and closed, a head or a body that never completes is cut, and an authenticated client is still served.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
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

  it('closes a connection whose request head never completes', async () => {
    const socket = connect(portOf(running.listener.url), '127.0.0.1');
    let closed = false;
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
    });
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
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
      'Host: x',
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
