// The metrics listener (`observability.metrics_addr`): /metrics in Prometheus text, /healthz while the process
// serves, /readyz while the supervisor takes work. Over node:http; the bound address is logged (port 0 allowed).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitAddr } from '../config/budgetKeys.js';
import { DaemonError } from '../errors.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  /** `HOST:PORT` actually bound. */
  address: string;
  close(): Promise<void>;
}

export function startMetricsServer(opts: {
  addr: string;
  metrics: Metrics;
  ready(): boolean;
  /** Why it is not ready, as `key=value` words for the 503 body (e.g. `store_failing=true`). */
  notReady?(): string;
  log: Logger;
}): Promise<MetricsServer> {
  const target = splitAddr(opts.addr);
  if (target === null) return Promise.reject(new Error(`observability.metrics_addr: bad address ${opts.addr}`));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed\n');
    if (path === '/metrics') {
      opts.metrics.render().then(
        (text) => reply(res, 200, text, opts.metrics.contentType),
        (err: unknown) => reply(res, 500, `metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
    if (path === '/healthz') return reply(res, 200, 'ok\n');
    if (path === '/readyz') {
      if (opts.ready()) return reply(res, 200, 'ready\n');
      const why = opts.notReady?.() ?? '';
      return reply(res, 503, `not ready${why ? ` ${why}` : ''}\n`);
    }
    return reply(res, 404, 'not found\n');
  });
  return new Promise((resolve, reject) => {
    // A port in use or a host that does not resolve is the operator's to fix: a config error naming the key.
    server.once('error', (err) =>
      reject(
        new DaemonError('config_invalid', `observability.metrics_addr: cannot listen on ${opts.addr}: ${err.message}`),
      ),
    );
    server.listen(target.port, target.host, () => {
      server.removeAllListeners('error');
      const bound = server.address() as AddressInfo;
      const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      const address = `${host}:${bound.port}`;
      opts.log.info('metrics.listen', { addr: address });
      resolve({
        address,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
      server.unref();
    });
  });
}

function reply(res: http.ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Starts the listener when `observability.metrics_addr` is set; null otherwise. */
export function serveMetrics(
  addr: string | null,
  source: { metrics: Metrics; readonly ready: boolean; readonly commits?: { readonly failing: boolean } },
  log: Logger,
): Promise<MetricsServer | null> {
  if (addr === null) return Promise.resolve(null);
  const notReady = () => (source.commits?.failing ? 'store_failing=true' : '');
  return startMetricsServer({ addr, metrics: source.metrics, ready: () => source.ready, notReady, log });
}
