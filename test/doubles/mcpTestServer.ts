// A Streamable-HTTP MCP test server (SDK McpServer over node:http on 127.0.0.1): echo, slow, failing,
// first_call_hangs, json_text, add_tool, garbage, search (knowledge hits); a prompt and a resource that are skills;
// a subscribable resource `test://watched` that updateResource changes (notifying every subscribed session).
// Records every `tools/call` on the wire so tests assert on it.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** One `tools/call` request as it arrived. */
export interface RecordedCall {
  name: string;
  args: unknown;
  meta: Record<string, unknown> | undefined;
}

export interface McpTestServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  calls: RecordedCall[];
  /** Sets the text of `test://watched` and sends `notifications/resources/updated` to every subscribed session. */
  updateResource(text: string): Promise<void>;
  /** Sessions subscribed to `test://watched` now. */
  subscribers(): number;
  /** Drops every connection at once (a hanging call ends as if the server died), then stops listening. */
  close(): Promise<void>;
}

export const WATCHED_URI = 'test://watched';

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
}

interface State {
  calls: RecordedCall[];
  sessions: Map<string, Session>;
  /** Tools added by add_tool; every session (and every later one) gets them. */
  added: string[];
  firstHangUsed: boolean;
  /** Resolves when the server closes: hanging tools answer then. */
  closing: Promise<void>;
  watched: string;
  subscribed: Set<McpServer>;
}

type Text = { type: 'text'; text: string };
const text = (t: string): Text => ({ type: 'text', text: t });

function sleep(ms: number, signal: AbortSignal, closing: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = (): void => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
    void closing.then(stop);
  });
}

function addedTool(server: McpServer, name: string): void {
  server.registerTool(name, { description: `added at runtime: ${name}`, inputSchema: {} }, async () => ({
    content: [text(JSON.stringify({ tool: name }))],
  }));
}

function registerTools(server: McpServer, state: State): void {
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, async (a) => ({
    content: [text(a.text)],
    structuredContent: { text: a.text },
  }));
  server.registerTool(
    'slow',
    { description: 'Sleeps ms, then answers', inputSchema: { ms: z.number() } },
    async (a, x) => {
      await sleep(a.ms, x.signal, state.closing);
      return { content: [text(JSON.stringify({ slept: a.ms }))] };
    },
  );
  server.registerTool('failing', { description: 'Always fails', inputSchema: {} }, async () => ({
    content: [text('the failing tool failed')],
    isError: true,
  }));
  server.registerTool(
    'first_call_hangs',
    { description: 'The first call never answers', inputSchema: {} },
    async (_a, x) => {
      if (!state.firstHangUsed) {
        state.firstHangUsed = true;
        await sleep(2_147_483_647, x.signal, state.closing);
      }
      return { content: [text('{"ok":true}')], structuredContent: { ok: true } };
    },
  );
  server.registerTool('json_text', { description: 'A text part holding JSON', inputSchema: {} }, async () => ({
    content: [text('{"items":[1,2,3],"ok":true}')],
  }));
  server.registerTool('add_tool', { description: 'Registers a tool', inputSchema: { name: z.string() } }, async (a) => {
    state.added.push(a.name);
    // Registering on a connected server emits notifications/tools/list_changed to its client.
    for (const session of state.sessions.values()) addedTool(session.server, a.name);
    return { content: [text(JSON.stringify({ added: a.name }))] };
  });
  server.registerTool('garbage', { description: 'Answers a malformed result', inputSchema: {} }, async () => ({
    content: [],
  }));
  server.registerTool(
    'search',
    { description: 'Knowledge search', inputSchema: { query: z.string(), top_k: z.number().optional() } },
    async (a) => {
      const hits = [
        { id: 'kb-1', uri: 'kb://runbook', title: 'Runbook', score: 0.9, snippet: `KB-HIT about ${a.query}` },
        { id: 'kb-2', uri: 'kb://faq', title: 'FAQ', score: 0.5, snippet: 'second hit' },
      ].slice(0, a.top_k ?? 5);
      return { content: [text(JSON.stringify({ hits }))], structuredContent: { hits } };
    },
  );
  for (const name of state.added) addedTool(server, name);
  registerSkills(server);
}

/** A prompt and a resource a skills.sources entry lists as the skills `deploy` and `review`. */
function registerSkills(server: McpServer): void {
  server.registerPrompt('deploy', { description: 'How we deploy' }, () => ({
    messages: [{ role: 'user', content: text('DEPLOY-SKILL-BODY: run the pipeline, then watch the canary.') }],
  }));
  server.registerResource(
    'review',
    'kb://skills/review',
    { description: 'Review checklist', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'REVIEW-SKILL-BODY: read every diff.' }] }),
  );
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

type Rpc = { method?: unknown; id?: unknown; params?: Record<string, unknown> };
const messages = (body: unknown): Rpc[] => (Array.isArray(body) ? body : body ? [body] : []) as Rpc[];

function record(state: State, body: unknown): void {
  for (const m of messages(body)) {
    if (m.method !== 'tools/call' || !m.params) continue;
    const meta = m.params._meta as Record<string, unknown> | undefined;
    state.calls.push({ name: String(m.params.name), args: m.params.arguments, meta });
  }
}

/** `garbage` is answered here, below the SDK, with a result that is not a CallToolResult. */
function garbageCall(body: unknown): Rpc | undefined {
  return messages(body).find((m) => m.method === 'tools/call' && m.params?.name === 'garbage');
}

/** `test://watched`: readable, and subscribable (the session is remembered until it unsubscribes or closes). */
function registerWatched(server: McpServer, state: State): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.registerResource('watched', WATCHED_URI, { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, text: state.watched }],
  }));
  server.server.setRequestHandler(SubscribeRequestSchema, async () => {
    state.subscribed.add(server);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => {
    state.subscribed.delete(server);
    return {};
  });
}

async function newSession(state: State): Promise<Session> {
  const server = new McpServer({ name: 'agentd-mcp-test-server', version: '1.0.0' });
  registerTools(server, state);
  registerWatched(server, state);
  const session = {} as Session;
  session.server = server;
  session.transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void state.sessions.set(id, session),
  });
  session.transport.onclose = () => {
    state.subscribed.delete(server);
    if (session.transport.sessionId) state.sessions.delete(session.transport.sessionId);
  };
  await server.connect(session.transport);
  return session;
}

function rpcError(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function handle(state: State, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (!req.url?.startsWith('/mcp')) return rpcError(res, 404, 'not found');
  const body = req.method === 'POST' ? parse(await readBody(req)) : undefined;
  record(state, body);
  const garbage = garbageCall(body);
  if (garbage) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: garbage.id, result: { content: 42 } }));
    return;
  }
  const sid = req.headers['mcp-session-id'];
  let session = typeof sid === 'string' ? state.sessions.get(sid) : undefined;
  const initialize = messages(body).some((m) => m.method === 'initialize');
  if (!session && sid === undefined && initialize) session = await newSession(state);
  if (!session) return rpcError(res, sid === undefined ? 400 : 404, 'no such session');
  await session.transport.handleRequest(req, res, body);
}

/** Starts the server on 127.0.0.1 (port 0 ⇒ any free port). */
export async function startMcpTestServer(opts: { port?: number } = {}): Promise<McpTestServer> {
  let release = (): void => {};
  const closing = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state: State = {
    ...{ calls: [], sessions: new Map(), added: [], firstHangUsed: false, closing },
    ...{ watched: '{"version":0}', subscribed: new Set<McpServer>() },
  };
  const server = http.createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      if (!res.headersSent) rpcError(res, 500, err instanceof Error ? err.message : String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: state.calls,
    updateResource: async (text) => {
      state.watched = text;
      for (const server of state.subscribed) await server.server.sendResourceUpdated({ uri: WATCHED_URI });
    },
    subscribers: () => state.subscribed.size,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of state.sessions.values()) await session.server.close().catch(() => {});
    },
  };
}
