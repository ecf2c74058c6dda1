// Where the client subcommands find the daemon (issue 18 item 2): each of URL and token from its flag (`--url`,
// `--token`), else AGENTD_URL / AGENTD_TOKEN (a token in the environment stays out of `ps`), else the local config
// (`--config FILE`, compiled by compileConfig like the daemon's own: STYLE.md rule 4).
import { compileConfig } from '../config/compile.js';
import type { Config } from '../config/types.js';
import { DaemonError } from '../errors.js';

export interface Endpoint {
  url: string;
  token: string | null;
}

export interface EndpointFlags {
  url?: string;
  token?: string;
  config?: string;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/** The daemon's URL and token; a usage error (exit 2) names what is missing or wrong, in one line. */
export function resolveEndpoint(flags: EndpointFlags, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Endpoint {
  const local = flags.config === undefined ? null : localEndpoint(flags.config, env, cwd);
  const url = flags.url ?? (env.AGENTD_URL || null) ?? local?.url() ?? null;
  // The config's operator token goes only to the config's own listener, never to a --url/AGENTD_URL elsewhere.
  const token = tokenOf(flags, env, local && url !== null && local.reaches(url) ? local : null);
  if (url === null) {
    throw new DaemonError('usage_invalid', 'no daemon to talk to: pass --url URL, set AGENTD_URL, or --config FILE');
  }
  const origin = flags.url !== undefined ? '--url' : env.AGENTD_URL ? 'AGENTD_URL' : `--config ${flags.config}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DaemonError('usage_invalid', `${origin} ${JSON.stringify(url)}: not a URL (expected http://HOST:PORT)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DaemonError('usage_invalid', `${origin} ${JSON.stringify(url)}: expected an http:// or https:// URL`);
  }
  return { url, token };
}

/** The token alone (`agentd tui --start` learns the URL from the daemon it starts from this same config). */
export function resolveToken(flags: EndpointFlags, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string | null {
  return tokenOf(flags, env, flags.config === undefined ? null : localEndpoint(flags.config, env, cwd));
}

function tokenOf(flags: EndpointFlags, env: NodeJS.ProcessEnv, local: { token: string | null } | null): string | null {
  return flags.token ?? (env.AGENTD_TOKEN || null) ?? local?.token ?? null;
}

/**
 * The endpoint a config file names: `a2a.listen` as a client reaches it, and the bearer of its first operator
 * principal (the local config's owner runs the daemon). The URL is derived lazily: a `--url` beside `--config`
 * needs no listener in the file. A config that does not compile is a usage error naming the file.
 */
function localEndpoint(file: string, env: NodeJS.ProcessEnv, cwd: string) {
  let config: Readonly<Config>;
  try {
    // The listener's keys alone: a client needs no model key, so an unset model secret is no error here.
    config = compileConfig({ files: [file], env, flags: {}, cwd, only: (path) => path.startsWith('a2a.') });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new DaemonError('usage_invalid', `--config ${file}: ${why}`);
  }
  const operator = config.a2a.principals.find((p) => p.role === 'operator' && 'bearer' in p.match);
  const token = operator && 'bearer' in operator.match ? operator.match.bearer : null;
  const url = () => listenOf(file, config.a2a.listen);
  const reaches = (given: string): boolean => {
    try {
      return new URL(given).origin === url();
    } catch {
      return false;
    }
  };
  return { token, url, reaches };
}

/** `a2a.listen` as a client reaches it: a wildcard host is loopback; port 0 cannot be reached. */
function listenOf(file: string, listen: string | null): string {
  if (listen === null) throw new DaemonError('usage_invalid', `--config ${file}: no a2a.listen to reach`);
  const target = new URL(listen);
  if (target.port === '0')
    throw new DaemonError('usage_invalid', `--config ${file}: a2a.listen has port 0 (a free port); pass --url`);
  if (WILDCARD.has(target.hostname)) target.hostname = '127.0.0.1';
  return target.origin;
}
