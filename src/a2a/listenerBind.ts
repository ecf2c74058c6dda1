// The listener's socket: the https files read at start and the bind to `a2a.listen`, each failure a config error
// naming the key (exit 2), not a crash.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { A2aConfig } from '../config/types.js';
import { DaemonError, describeError } from '../errors.js';

/** Cert and key of an https listener, read now: a missing file is a config error (exit 2), not a crash. */
export function tlsFiles(a2a: Readonly<A2aConfig>): { cert: Buffer; key: Buffer } {
  if (a2a.tls === null) throw new DaemonError('config_invalid', 'a2a.listen: an https listener needs a2a.tls');
  const read = (field: 'cert' | 'key', path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? describeError(err);
      throw new DaemonError('config_invalid', `a2a.tls.${field}: cannot read ${JSON.stringify(path)} (${code})`);
    }
  };
  return { cert: read('cert', a2a.tls.cert), key: read('key', a2a.tls.key) };
}

/** Listens on the URL's host and port (0 or absent ⇒ a free one / the scheme's default); resolves the port. */
export function bind(server: Server, target: URL): Promise<number> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why = err.code ?? describeError(err);
      reject(new DaemonError('config_invalid', `a2a.listen: cannot listen on ${target.host} (${why})`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
