// The listener's open connections and how many requests each is answering, so that closing ends idle
// keep-alive connections at once and busy ones right after their response (node's own idle list misses some).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class ConnectionTracker {
  private readonly busy = new Map<Socket, number>();
  private closing = false;

  /** `secureConnection` for https: the TLS socket is the one requests arrive on. */
  constructor(server: Server, event: 'connection' | 'secureConnection') {
    server.on(event, (socket: Socket) => {
      if (this.closing) {
        socket.destroy();
        return;
      }
      this.busy.set(socket, 0);
      socket.once('close', () => this.busy.delete(socket));
    });
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  /** From now on a connection is destroyed as soon as it answers nothing; idle ones go now. */
  closeIdle(): void {
    this.closing = true;
    for (const [socket, count] of this.busy) if (count === 0) socket.destroy();
  }

  /** Destroys every connection, busy or not. */
  destroyAll(): void {
    this.closing = true;
    for (const socket of this.busy.keys()) socket.destroy();
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (this.busy.get(socket) ?? 1) - 1;
      if (!this.busy.has(socket)) return;
      this.busy.set(socket, left);
      if (this.closing && left === 0) socket.destroy();
    });
  }
}
