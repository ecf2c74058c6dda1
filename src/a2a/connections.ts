// The listener's open connections: how many requests each is answering, the cap on how many may be open and the
// deadline for a request head, so that idle clients cannot hold descriptors (issue 13) and closing ends idle
// keep-alive connections at once and busy ones right after their response (node's own idle list misses some).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { admitConnection } from './connectionAdmission.js';

export interface ConnectionLimits {
  /** Open connections at most (`a2a.max_connections`). */
  maxConnections: number;
  /** A connection with no complete request head this long is closed (`a2a.header_timeout`, ms). */
  headerTimeoutMs: number;
  /** Told when a connection is closed for the cap or the head deadline (for a throttled event). */
  onShed(reason: 'evicted' | 'refused' | 'header_timeout'): void;
}

interface Open {
  busy: number;
  /** A response on it has ended (kept alive after being answered). */
  served: boolean;
  lastActive: number;
  /** Armed until the first request head arrives; keep-alive idleness after it is node's keepAliveTimeout. */
  headTimer: NodeJS.Timeout | null;
}

export class ConnectionTracker {
  /** Keyed by the raw TCP socket, so that over https a client is counted before (and while) it shakes hands. */
  private readonly open = new Map<Socket, Open>();
  /** https: the raw socket under each TLS socket, found by the connection's address 4-tuple. */
  private readonly rawOf = new WeakMap<Socket, Socket>();
  private readonly byTuple = new Map<string, Socket>();
  private closing = false;

  constructor(
    server: Server,
    tls: boolean,
    private readonly limits: ConnectionLimits,
  ) {
    server.on('connection', (socket: Socket) => this.onConnection(socket, tls));
    if (tls) server.on('secureConnection', (socket: Socket) => this.onSecure(socket));
    // Node refuses past this before any of our code runs: a backstop for sockets destroyed but not yet closed.
    server.maxConnections = limits.maxConnections * 2;
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  /** How many connections are open now. */
  get size(): number {
    return this.open.size;
  }

  /** From now on a connection is destroyed as soon as it answers nothing; idle ones go now. */
  closeIdle(): void {
    this.closing = true;
    for (const [socket, conn] of this.open) if (conn.busy === 0) socket.destroy();
  }

  /** Destroys every connection, busy or not. */
  destroyAll(): void {
    this.closing = true;
    for (const socket of this.open.keys()) socket.destroy();
  }

  private onConnection(socket: Socket, tls: boolean): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    const views = [...this.open].map(([key, conn]) => ({ key, ...conn }));
    const admission = admitConnection(views, this.limits.maxConnections);
    if (admission.kind === 'refuse') {
      this.limits.onShed('refused');
      socket.destroy();
      return;
    }
    if (admission.kind === 'evict') {
      this.limits.onShed('evicted');
      this.forget(admission.victim);
      admission.victim.destroy();
    }
    const headTimer = setTimeout(() => {
      this.limits.onShed('header_timeout');
      socket.destroy();
    }, this.limits.headerTimeoutMs);
    headTimer.unref();
    this.open.set(socket, { busy: 0, served: false, lastActive: Date.now(), headTimer });
    const tuple = tls ? tupleOf(socket) : null;
    if (tuple !== null) this.byTuple.set(tuple, socket);
    socket.once('close', () => {
      if (tuple !== null && this.byTuple.get(tuple) === socket) this.byTuple.delete(tuple);
      this.forget(socket);
    });
  }

  private onSecure(socket: Socket): void {
    const raw = this.byTuple.get(tupleOf(socket));
    if (raw) this.rawOf.set(socket, raw);
    else socket.destroy();
  }

  private forget(socket: Socket): void {
    const conn = this.open.get(socket);
    if (conn?.headTimer) clearTimeout(conn.headTimer);
    this.open.delete(socket);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = this.rawOf.get(req.socket) ?? req.socket;
    const conn = this.open.get(socket);
    if (!conn) return;
    if (conn.headTimer) clearTimeout(conn.headTimer);
    conn.headTimer = null;
    conn.busy += 1;
    res.once('close', () => {
      conn.busy -= 1;
      conn.served = true;
      conn.lastActive = Date.now();
      if (this.open.has(socket) && this.closing && conn.busy === 0) socket.destroy();
    });
  }
}

/** The connection's two ends: the same for a raw socket and the TLS socket over it. */
function tupleOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}|${socket.localAddress}|${socket.localPort}`;
}
