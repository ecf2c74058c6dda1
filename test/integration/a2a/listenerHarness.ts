// Starts an A2aListener on a free loopback port over the fake backend, with events captured, plus raw HTTP and
// official-client helpers for the listener tests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, Role } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { A2aListener } from '../../../src/a2a/listener.js';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { FakeBackend } from './fakeBackend.js';

export interface Running {
  listener: A2aListener;
  backend: FakeBackend;
  /** Every event line written, parsed. */
  events: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Compiles `yaml` (plus a loopback listener on port 0 unless it sets a2a.listen) and starts the listener. */
export async function startListener(yaml = '', env: Record<string, string> = {}): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-a2a-'));
  const text = yaml.includes('listen:') ? yaml : `a2a:\n  listen: http://127.0.0.1:0\n${yaml}`;
  writeFileSync(join(dir, 'agentd.yaml'), text);
  const config = compileConfig({ files: ['agentd.yaml'], env, flags: {}, cwd: dir, workflows: loadWorkflow });
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const backend = new FakeBackend();
  const instance = { name: 'desk', version: '9.9.9' };
  const listener = await A2aListener.start({ config, backend, log, instance });
  return { listener, backend, events, close: () => listener.close() };
}

/** A fetch that adds `Authorization: Bearer <token>` to every request. */
export function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The official SDK client, discovered from the listener's card. */
export function clientFor(url: string, fetchImpl?: typeof fetch): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory(fetchImpl ? { fetchImpl } : {})],
    cardResolver: new DefaultAgentCardResolver(fetchImpl ? { fetchImpl } : {}),
  });
  return new ClientFactory(options).createFromUrl(url);
}

/** A user message with text parts, in the SDK's core shape. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

/** One raw POST (or GET when body is null) to the listener, with full control of headers. */
export function rawRequest(
  url: string,
  body: string | Buffer | null,
  headers: Record<string, string> = {},
  path = '/',
): Promise<RawReply> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = request(target, { method: body === null ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    // The server may close its end while a refused body is still being written (413): not this test's failure.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (body !== null) req.end(body);
    else req.end();
  });
}

export const JSON_V1 = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

/** A JSON-RPC request body. */
export function rpc(method: string, params: unknown, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
