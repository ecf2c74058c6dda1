// The `mcp.servers` kind: NAME → {url, headers?, token?} (Streamable HTTP) or {command, args?, env?, cwd?}
// (stdio), from YAML or from one `--mcp NAME=URL|NAME=command args` flag. Pure: validation and shaping only.
import { isCredentialHeader } from '../obs/redactor.js';
import { checkUrl, type SecretResolver, type SubPath, type ValueKind } from './kinds.js';
import { closedMapping, isMapping, problemAt, shaped, textAt, textListAt, textMapAt } from './mappings.js';
import type { McpServerConfig, McpServerTag } from './types.js';

type Servers = Record<string, McpServerConfig>;

const HTTP_KEYS = ['url', 'headers', 'token'] as const;
const STDIO_KEYS = ['command', 'args', 'env', 'cwd'] as const;
const SERVER_TAGS: readonly McpServerTag[] = ['private_data', 'untrusted_content', 'external_comms'];
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
/** Anything that looks like `scheme://` is a URL attempt, never a command. */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const FLAG_SHAPE = 'expected NAME=URL or NAME="command args"';

/** mcp.servers: maps merge by server name across layers, so a later file or a flag replaces a server whole. */
export function mcpServersKind(): ValueKind<Servers> {
  return {
    type: 'map of server name to {url, headers, token} or {command, args, env, cwd}, each with optional tags',
    merges: true,
    fromYaml: (value) => shaped(() => readServers(value)),
    fromFlag: (text) => shaped(() => parseMcpFlag(text)),
    resolveSecretsIn: resolveServerSecrets,
  };
}

function readServers(value: unknown): Servers {
  if (value === null) return {};
  if (!isMapping(value)) return problemAt([], 'expected a mapping of server names');
  const servers: Servers = {};
  for (const [name, server] of Object.entries(value)) servers[checkName(name, [name])] = readServer(server, [name]);
  return servers;
}

function checkName(name: string, at: SubPath): string {
  return SERVER_NAME.test(name) ? name : problemAt(at, 'a server name may hold only letters, digits, _ and -');
}

function readServer(value: unknown, at: SubPath): McpServerConfig {
  const expected = 'a mapping with url or command';
  const server = closedMapping(value, [...HTTP_KEYS, ...STDIO_KEYS, 'tags'], at, expected);
  const tags = server['tags'] === undefined ? {} : { tags: readTags(server['tags'], [...at, 'tags']) };
  return { ...readTransport(server, at), ...tags };
}

function readTags(value: unknown, at: SubPath): McpServerTag[] {
  const tags = textListAt(value, at);
  const bad = tags.find((t) => !SERVER_TAGS.includes(t as McpServerTag));
  if (bad !== undefined) problemAt(at, `unknown tag "${bad}" (tags: ${SERVER_TAGS.join(', ')})`);
  return tags as McpServerTag[];
}

function readTransport(server: Record<string, unknown>, at: SubPath): McpServerConfig {
  const hasUrl = server['url'] !== undefined;
  if (hasUrl === (server['command'] !== undefined)) {
    problemAt(at, hasUrl ? 'give url or command, not both' : 'expected url (Streamable HTTP) or command (stdio)');
  }
  const foreign = (hasUrl ? STDIO_KEYS : HTTP_KEYS).find((key) => server[key] !== undefined);
  if (foreign) problemAt([...at, foreign], `only for a ${hasUrl ? 'command' : 'url'} server`);
  if (hasUrl) {
    const url = textAt(server['url'], [...at, 'url']);
    const bad = checkUrl(url);
    if (bad) problemAt([...at, 'url'], 'expected an http:// or https:// URL');
    const token = server['token'] ?? null;
    return {
      url,
      headers: textMapAt(server['headers'], [...at, 'headers']),
      token: token === null ? null : textAt(token, [...at, 'token']),
    };
  }
  const command = textAt(server['command'], [...at, 'command']);
  if (command.trim() === '') problemAt([...at, 'command'], 'expected a command');
  const cwd = server['cwd'] ?? null;
  return {
    command,
    args: textListAt(server['args'], [...at, 'args']),
    env: textMapAt(server['env'], [...at, 'env']),
    cwd: cwd === null ? null : textAt(cwd, [...at, 'cwd']),
  };
}

/** One `--mcp` value: `NAME=https://…` → an HTTP server; `NAME=command with args` → a stdio server. */
function parseMcpFlag(text: string): Servers {
  const eq = text.indexOf('=');
  if (eq <= 0) return problemAt([], FLAG_SHAPE);
  const name = checkName(text.slice(0, eq).trim(), []);
  const target = text.slice(eq + 1).trim();
  if (URL_LIKE.test(target)) {
    if (checkUrl(target)) problemAt([name], 'expected an http:// or https:// URL');
    return { [name]: { url: target, headers: {}, token: null } };
  }
  const words = splitWords(target, [name]);
  const [command, ...args] = words;
  if (command === undefined) return problemAt([name], FLAG_SHAPE);
  return { [name]: { command, args, env: {}, cwd: null } };
}

/** Splits on whitespace; "double" and 'single' quotes group (no escapes), and join adjacent text. */
export function splitWords(text: string, at: SubPath): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of text) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + ch;
  }
  if (quote !== null) problemAt(at, `unterminated ${quote === '"' ? 'double' : 'single'} quote`);
  if (word !== null) words.push(word);
  return words;
}

/**
 * Secrets resolve in a token, header values and env values; nowhere else. The token and credential-named header
 * values are registered for redaction (as the worker does), env values only where they came from a secret.
 */
function resolveServerSecrets(servers: Servers, resolve: SecretResolver): Servers {
  const out: Servers = {};
  for (const [name, server] of Object.entries(servers)) {
    const inMap = (map: Record<string, string>, key: string): Record<string, string> =>
      Object.fromEntries(
        Object.entries(map).map(([k, v]) => [
          k,
          resolve(v, [name, key, k], key === 'headers' && isCredentialHeader(k)),
        ]),
      );
    out[name] =
      'url' in server
        ? {
            ...server,
            headers: inMap(server.headers, 'headers'),
            token: server.token === null ? null : resolve(server.token, [name, 'token'], true),
          }
        : { ...server, env: inMap(server.env, 'env') };
  }
  return out;
}
