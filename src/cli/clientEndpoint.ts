// Where the client subcommands find the daemon (issue 18 item 2): `--url`/`--token`, else AGENTD_URL/AGENTD_TOKEN
// (a token in the environment stays out of `ps`), else `a2a.listen` of the local config (`--config FILE`).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DaemonError } from '../errors.js';

export interface Endpoint {
  url: string;
  token: string | null;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/** The daemon's URL and token; a usage error (exit 2) names what is missing. */
export function resolveEndpoint(
  flags: { url?: string; token?: string; config?: string },
  env: NodeJS.ProcessEnv,
): Endpoint {
  const token = flags.token ?? (env.AGENTD_TOKEN || null);
  const url = flags.url ?? (env.AGENTD_URL || null) ?? (flags.config ? listenOf(flags.config) : null);
  if (url === null) {
    throw new DaemonError('usage_invalid', 'no daemon to talk to: pass --url URL, set AGENTD_URL, or --config FILE');
  }
  try {
    new URL(url);
  } catch {
    throw new DaemonError('usage_invalid', `--url ${JSON.stringify(url)}: not a URL (expected http://HOST:PORT)`);
  }
  return { url, token };
}

/** `a2a.listen` of a config file, as a client reaches it: a wildcard host is loopback; port 0 cannot be reached. */
function listenOf(file: string): string {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DaemonError('usage_invalid', `--config ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const listen = (doc as { a2a?: { listen?: unknown } } | null)?.a2a?.listen;
  if (typeof listen !== 'string') throw new DaemonError('usage_invalid', `--config ${file}: no a2a.listen to reach`);
  const target = new URL(listen);
  if (target.port === '0')
    throw new DaemonError('usage_invalid', `--config ${file}: a2a.listen has port 0; pass --url`);
  if (WILDCARD.has(target.hostname)) target.hostname = '127.0.0.1';
  return target.origin;
}
