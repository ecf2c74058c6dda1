// The A2A listener (reference §17.1): node:http(s), the agent card, and JSON-RPC 2.0 through the SDK's transport
// handler. It authenticates, limits, checks and logs each request; the backend owns tasks, ownership and turns.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AgentCard } from '@a2a-js/sdk';
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { A2aConfig, Config } from '../config/types.js';
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { memoryTimersPort } from '../store/memoryStore.js';
import type { A2aBackend, Principal } from './backend.js';
import { buildAgentCard, type InstanceInfo } from './card.js';
import { ConnectionTracker } from './connections.js';
import { readEnvelope } from './envelope.js';
import type { FeedHub } from './feedHub.js';
import { serveFeed } from './feedRoute.js';
import { headerOf, ID_MARK, readBody, sendJson } from './httpIo.js';
import { bind, tlsFiles } from './listenerBind.js';
import { isLongRequest, LongRequests, longRequestLimit } from './longRequests.js';
import { guardRequest } from './originGuard.js';
import type { PairingCodes } from './pairingCodes.js';
import { authenticateRequest, isSecure } from './requestAuth.js';
import type { CallState } from './requestHandler.js';
import { errorEnvelope, RPC_CODES, RpcError } from './rpcError.js';
import type { RpcRequest, RpcTransport } from './rpcTransport.js';
import { ShedLog } from './shedLog.js';
import { credentialInUrl, urlCredentialRefusal } from './urlCredential.js';
import { isUiPath, serveWebUi, type WebDesk } from './webRoute.js';
import { WebSessions } from './webSessions.js';

export interface A2aListenerOptions {
  config: Readonly<Config>;
  backend: A2aBackend;
  log: Logger;
  instance: InstanceInfo;
  /** Webhook routes (triggers/webhooks.ts): a request on a path they hold is theirs. */
  webhooks?: { serve(req: IncomingMessage, res: ServerResponse, path: string): boolean };
  /** The client feed served at `GET /feed`; absent = 404 there. */
  feed?: FeedHub;
  /** One-time pairing codes the web UI's sign-in redeems; absent = sign-in by token only. */
  pairing?: PairingCodes;
  /** The web UI's sessions, when the owner counts them too (`pairing.code`); absent = the listener's own. */
  sessions?: WebSessions;
  /** The producer's clock for sessions and codes; default Date.now. */
  clock?: () => number;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);
const RPC_PATHS = new Set(['/', '/a2a']);
const FEED_PATH = '/feed';
const JSON_TYPES = /^application\/(json|a2a\+json)\s*(;|$)/i;
/** How long close() lets answered requests flush before it cuts the remaining connections. */
const CLOSE_GRACE_MS = 1_000;

/** One request's audit fields (`a2a.request`), filled in as the request goes. */
interface Audit {
  principal: string | null;
  role?: Principal['role'];
  method: string | null;
  outcome: string | number;
  op?: string;
  error?: string;
  text?: string;
}

/** The A2A listener: a node:http(s) server bound to `a2a.listen`; `close()` ends streams and connections. */
export class A2aListener {
  private boundUrl = '';
  /** Bound to a loopback address: `Host` must then name one too (or a listed origin's host). */
  private loopback = false;
  private readonly calls = new Set<AbortController>();
  /** The SDK's side (rpcTransport.ts), loaded at the first card or JSON-RPC request: an idle daemon holds none of it. */
  private transport: Promise<RpcTransport> | null = null;
  /** Read per request: a reload's principals authenticate the next request (interfaces §3.6). */
  private get a2a(): Readonly<A2aConfig> {
    return this.opts.config.a2a;
  }
  private readonly connections: ConnectionTracker;
  private readonly long = new LongRequests();
  /** Web UI sign-ins (webSessions.ts): the producer's, kept in the store; else this listener's own, in memory. */
  private readonly sessions: WebSessions;
  private readonly web: WebDesk;

  private constructor(
    private readonly server: Server,
    private readonly opts: A2aListenerOptions,
    tls: boolean,
  ) {
    this.sessions = opts.sessions ?? new WebSessions(memoryTimersPort());
    const now = opts.clock ?? Date.now;
    this.web = { sessions: this.sessions, log: opts.log, now, ...(opts.pairing ? { pairing: opts.pairing } : {}) };
    const shed = new ShedLog(opts.log);
    this.connections = new ConnectionTracker(server, tls, {
      maxConnections: this.a2a.max_connections,
      headerTimeoutMs: this.a2a.header_timeout,
      onShed: (reason) => shed.count(reason, this.connections.size),
    });
    // node's own bounds cover what the tracker does not: a slow head after the first request on a kept-alive
    // connection. The tracker's head deadline runs from TCP accept, so it bounds a TLS handshake too.
    server.headersTimeout = this.a2a.header_timeout;
    server.requestTimeout = this.a2a.header_timeout + this.a2a.body_timeout;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  /** Binds `a2a.listen` (port 0 = a free port) and logs `a2a.listen {bound}`. TLS files are read here. */
  static async start(opts: A2aListenerOptions): Promise<A2aListener> {
    const listen = opts.config.a2a.listen;
    if (listen === null) throw new DaemonError('config_invalid', 'a2a.listen: not set');
    const target = new URL(listen);
    const tls = target.protocol === 'https:';
    const bounds = { connectionsCheckingInterval: Math.min(1_000, opts.config.a2a.header_timeout) };
    // node:https (TLS) loads only for an https listener.
    const server = tls
      ? (await import('node:https')).createServer({
          ...tlsFiles(opts.config.a2a),
          ...bounds,
          handshakeTimeout: opts.config.a2a.header_timeout,
        })
      : createHttpServer(bounds);
    const listener = new A2aListener(server, opts, tls);
    listener.loopback = isLoopbackHost(target.hostname);
    const port = await bind(server, target);
    listener.boundUrl = `${target.protocol}//${target.hostname}:${port}`;
    opts.log.info('a2a.listen', { bound: listener.boundUrl, ui: `${listener.boundUrl}/ui` });
    return listener;
  }

  /** The bound URL, e.g. `http://127.0.0.1:41234` (the card's JSONRPC interface URL). */
  get url(): string {
    return this.boundUrl;
  }

  /**
   * Stops accepting, ends every open stream and blocking wait (each answers with what it has), closes idle
   * connections now and busy ones once answered; whatever is left after a grace second is cut.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const call of this.calls) call.abort();
    this.connections.closeIdle();
    const grace = setTimeout(() => {
      this.connections.destroyAll();
      this.server.closeAllConnections();
    }, CLOSE_GRACE_MS);
    grace.unref();
    await closed;
    clearTimeout(grace);
  }

  private card(): AgentCard {
    return buildAgentCard(this.opts.instance, this.boundUrl, this.a2a);
  }

  private rpc(): Promise<RpcTransport> {
    this.transport ??= import('./rpcTransport.js').then(
      (m) => new m.RpcTransport(this.opts.backend, () => this.card()),
    );
    return this.transport;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (this.refuseUrlCredential(req, res, path)) return;
    const own = CARD_PATHS.has(path) || RPC_PATHS.has(path) || path === FEED_PATH;
    if ((own || isUiPath(path)) && this.guard(req, res, !own)) return;
    if (req.method === 'GET' && CARD_PATHS.has(path)) {
      this.rpc().then(
        (rpc) => sendJson(res, 200, rpc.cardJson(this.card())),
        (err: unknown) => this.crashed(res, null, err),
      );
      return;
    }
    if (req.method === 'POST' && RPC_PATHS.has(path)) {
      this.onRpc(req, res).catch((err: unknown) => this.crashed(res, null, err));
      return;
    }
    if (serveWebUi(req, res, path, this.a2a, this.web)) return;
    if (this.opts.webhooks?.serve(req, res, path)) return;
    if (req.method === 'GET' && path === FEED_PATH && this.opts.feed) {
      this.onFeed(req, res, this.opts.feed).catch((err: unknown) => {
        this.opts.log.error('a2a.request', {
          principal: null,
          method: 'feed',
          outcome: 'crash',
          error: describeError(err),
        });
        if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
        else res.end();
      });
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: 'GET, POST, OPTIONS' }).end();
      return;
    }
    const known = CARD_PATHS.has(path) || RPC_PATHS.has(path);
    sendJson(res, known ? 405 : 404, { error: known ? 'method not allowed' : 'not found' });
  }

  /** The browser guard (originGuard.ts); true when it answered the request (403, or a preflight's 204). */
  private guard(req: IncomingMessage, res: ServerResponse, hostOnly: boolean): boolean {
    const facts = {
      method: req.method ?? 'GET',
      origin: headerOf(req, 'origin'),
      host: headerOf(req, 'host'),
      secure: isSecure(req),
      privateNetwork: headerOf(req, 'access-control-request-private-network'),
    };
    const guarded = guardRequest(facts, this.a2a.origins, this.loopback, hostOnly);
    if (guarded.kind === 'refused') {
      const err = new RpcError(RPC_CODES.forbidden, guarded.reason, 403);
      this.refuse(res, null, err, { principal: null, method: null, outcome: guarded.outcome });
      return true;
    }
    if (guarded.kind === 'preflight') {
      res.writeHead(204, guarded.headers).end();
      return true;
    }
    for (const [name, value] of Object.entries(guarded.headers)) res.setHeader(name, value);
    return false;
  }

  /** A `?bearer=` (or like) on the listener's own routes: 400, audited by the parameter's name only. */
  private refuseUrlCredential(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const own = CARD_PATHS.has(path) || RPC_PATHS.has(path) || path === FEED_PATH || isUiPath(path);
    const param = own ? credentialInUrl(req.url ?? '') : null;
    if (param === null) return false;
    res.once('finish', () => res.req.socket.destroy());
    sendJson(res, 400, { error: urlCredentialRefusal(param) }, { close: true });
    this.audit({ principal: null, method: null, outcome: 'credential_in_url' });
    return true;
  }

  private async onRpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const audit: Audit = { principal: null, method: null, outcome: 'ok' };
    const caller = await authenticateRequest(this.a2a, req, this.sessions, this.web.now());
    if ('refused' in caller) {
      const err = new RpcError(RPC_CODES.unauthenticated, caller.refused, 401);
      return this.refuse(res, null, err, { ...audit, outcome: 'unauthenticated' }, { 'WWW-Authenticate': 'Bearer' });
    }
    Object.assign(audit, { principal: caller.id, role: caller.role });
    const read = await readBody(req, this.a2a.max_body_bytes, this.a2a.body_timeout);
    if (!read.ok) {
      if (read.reason === 'aborted') return this.audit({ ...audit, outcome: 'aborted' });
      return this.refuse(res, null, bodyRefusal(read.reason, this.a2a), { ...audit, outcome: read.reason });
    }
    const type = headerOf(req, 'content-type');
    if (type !== undefined && !JSON_TYPES.test(type)) {
      const err = new RpcError(RPC_CODES.content_type, 'expected Content-Type: application/json');
      return this.refuse(res, null, err, { ...audit, outcome: err.code });
    }
    const envelope = readEnvelope(read.text, headerOf(req, 'a2a-version'), ID_MARK);
    if (!envelope.ok) {
      const failed = { ...audit, method: envelope.method ?? null, outcome: envelope.error.code };
      return this.refuse(res, envelope.id, envelope.error, failed);
    }
    const { request } = envelope;
    audit.method = request.method;
    if (this.opts.config.observability.log_content) audit.text = messageText(request.body);
    const release = isLongRequest(request.method, request.body) ? this.holdLong(caller) : () => {};
    if (release === null) {
      const limit = longRequestLimit(this.a2a);
      const err = new RpcError(
        RPC_CODES.quota_exceeded,
        `principal ${caller.id} holds ${limit} streams or blocking sends already (a2a.max_long_requests): retry when one ends`,
      );
      return this.refuse(res, request.id, err, { ...audit, outcome: 'long_requests' });
    }
    try {
      await this.dispatch(res, caller, request, audit);
    } finally {
      release();
    }
  }

  /** `GET /feed`: authenticated like any call, counted as a long request, ended when the listener closes. */
  private async onFeed(req: IncomingMessage, res: ServerResponse, feed: FeedHub): Promise<void> {
    const audit: Audit = { principal: null, method: 'feed', outcome: 'ok' };
    const caller = await authenticateRequest(this.a2a, req, this.sessions, this.web.now());
    if ('refused' in caller) {
      const err = new RpcError(RPC_CODES.unauthenticated, caller.refused, 401);
      return this.refuse(res, null, err, { ...audit, outcome: 'unauthenticated' }, { 'WWW-Authenticate': 'Bearer' });
    }
    Object.assign(audit, { principal: caller.id, role: caller.role });
    const release = this.holdLong(caller);
    if (release === null) {
      const err = new RpcError(RPC_CODES.quota_exceeded, `principal ${caller.id} holds its streams already`, 429);
      return this.refuse(res, null, err, { ...audit, outcome: 'long_requests' });
    }
    const controller = new AbortController();
    this.calls.add(controller);
    res.on('close', () => controller.abort());
    try {
      // A client dropped for not reading (feedRoute.ts FEED_BEHIND_BYTES) is audited as `behind`.
      if ((await serveFeed(req, res, caller, feed, controller.signal)) === 'behind') audit.outcome = 'behind';
    } finally {
      release();
      this.calls.delete(controller);
      this.audit(audit);
    }
  }

  private holdLong(caller: Principal): (() => void) | null {
    return this.long.hold(caller.id, longRequestLimit(this.a2a));
  }

  private async dispatch(res: ServerResponse, principal: Principal, request: RpcRequest, audit: Audit): Promise<void> {
    const controller = new AbortController();
    this.calls.add(controller);
    res.on('close', () => controller.abort());
    const call: CallState = { principal, signal: controller.signal };
    try {
      audit.outcome = await (await this.rpc()).answer(res, request, call);
    } finally {
      this.calls.delete(controller);
      this.audit({ ...audit, ...optional('op', call.op), ...optional('error', call.internal) });
    }
  }

  /** A request that threw past its own handling: logged as a crash, answered 500 when nothing was sent yet. */
  private crashed(res: ServerResponse, method: string | null, err: unknown): void {
    this.opts.log.error('a2a.request', { principal: null, method, outcome: 'crash', error: describeError(err) });
    if (!res.headersSent) sendJson(res, 500, errorEnvelope(null, new RpcError(RPC_CODES.internal, 'internal error')));
    else res.end();
  }

  private refuse(
    res: ServerResponse,
    id: string | number | null,
    err: RpcError,
    audit: Audit,
    headers: Record<string, string> = {},
  ): void {
    // A body left unread (401, 413): the client is asked to drop the connection rather than send more.
    const close = err.httpStatus !== 200;
    if (close) res.once('finish', () => res.req.socket.destroy());
    sendJson(res, err.httpStatus, errorEnvelope(id, err), { close, headers });
    this.audit(audit);
  }

  private audit(audit: Audit): void {
    const level = audit.error !== undefined ? 'error' : audit.outcome === 'ok' ? 'info' : 'warn';
    this.opts.log.event(level, 'a2a.request', { ...audit });
  }
}

/** The answer to a body that came too big or too slowly; the connection is closed after it. */
function bodyRefusal(reason: 'too_large' | 'timeout', a2a: Readonly<A2aConfig>): RpcError {
  return reason === 'too_large'
    ? new RpcError(RPC_CODES.invalid_request, `request body over ${a2a.max_body_bytes} bytes`, 413)
    : new RpcError(RPC_CODES.invalid_request, `request body not received within ${a2a.body_timeout} ms`, 408);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The text parts of a SendMessage (for `observability.log_content` only). */
function messageText(body: Record<string, unknown>): string | undefined {
  const params = body['params'] as { message?: { parts?: Array<{ text?: unknown }> } } | undefined;
  const texts = params?.message?.parts?.map((part) => part.text).filter((t): t is string => typeof t === 'string');
  return texts && texts.length > 0 ? texts.join('\n') : undefined;
}
