// The environment a stdio MCP server process gets: a small allow-list inherited from ours, the configured env
// on top. Pure. Our own secrets (model tokens, store credentials, proxies with passwords) never pass by default.

/** Variables a stdio server inherits by name: what a program needs to find itself, its files and its locale. */
export const STDIO_ENV_ALLOW: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Windows: a process cannot start or find its profile without these.
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

/** Variables inherited by prefix (locale categories). */
export const STDIO_ENV_ALLOW_PREFIXES: readonly string[] = ['LC_'];

function allowed(name: string): boolean {
  return STDIO_ENV_ALLOW.includes(name) || STDIO_ENV_ALLOW_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * The complete environment of a stdio server: allow-listed variables of `base` (usually process.env), then
 * `configured` over them. Exported shell functions (`() {…}` values) are never inherited.
 */
export function stdioEnv(
  base: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || value.startsWith('()') || !allowed(name)) continue;
    env[name] = value;
  }
  return { ...env, ...configured };
}
