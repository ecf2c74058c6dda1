// The `a2a.*` kinds (listen URL, tls files, principals) and the checks between them (reference §17.1, §17.3).
// Pure: shapes and validates; the tls files are checked for existence when the listener starts, not here.
import { readBudget } from './budgetKeys.js';
import type { SubPath, ValueKind } from './kinds.js';
import { showValue } from './kinds.js';
import { choiceAt, closedMapping, nameAt, problemAt, shaped, textAt, textListAt } from './mappings.js';
import type { OriginOf } from './roleRules.js';
import type { A2aConfig, A2aPrincipalConfig, Config, PrincipalQuotas } from './types.js';

const PRINCIPAL_ROLES = ['operator', 'user', 'agent'] as const;
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Listener bounds against clients that hold descriptors (issue 13), and the card's fixed description. */
export const A2A_DEFAULTS = {
  max_connections: 512,
  header_timeout: 10_000,
  body_timeout: 30_000,
  max_long_requests: 64,
  card_description: 'agentd: a durable agent daemon',
  feed_retain_events: 10_000,
  feed_retain_age: 7 * 24 * 3_600_000,
  tasks_retain: 1_000,
  tasks_retain_age: 7 * 24 * 3_600_000,
} as const;

const LISTEN_SHAPE = 'expected http://HOST:PORT or https://HOST:PORT';
const PRINCIPAL_KEYS = ['id', 'role', 'match', 'grants', 'quotas'];
/** The quotas counted at accept (issue 13): one message's bytes, conversations owned, stored bytes. */
const COUNTED_QUOTAS = ['message_bytes', 'conversations', 'stored_bytes'] as const;
const PRINCIPAL_ID = /^[A-Za-z0-9_.@-]+$/;
/** `*`, an exact name, or `prefix*`: a star only at the end (as in security.policies). */
const GRANT = /^[^*]+\*?$|^\*$/;

type Tls = A2aConfig['tls'];
type Principals = readonly A2aPrincipalConfig[];

/** True for a loopback host or address: `localhost`, 127.0.0.0/8, `::1` (bracketed or IPv4-mapped too). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** The problem with a listen URL, or null: http(s), a host, an optional port, nothing else. */
export function listenProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${LISTEN_SHAPE}, got ${showValue(text)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${LISTEN_SHAPE}, got ${showValue(url.protocol)}`;
  if (url.hostname === '') return `${LISTEN_SHAPE} (no host)`;
  if (url.username !== '' || url.password !== '') return `${LISTEN_SHAPE} (no user or password)`;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return `${LISTEN_SHAPE} (no path, query or fragment)`;
  }
  return null;
}

/** a2a.listen: a URL or null; from text (`AGENTD_A2A_LISTEN`), "" and "null" mean null. */
export function listenKind(): ValueKind<string | null> {
  const check = (value: unknown) => {
    if (value === null) return { ok: true as const, value: null };
    if (typeof value !== 'string') return { ok: false as const, problem: `${LISTEN_SHAPE}, got ${showValue(value)}` };
    const problem = listenProblem(value.trim());
    return problem === null ? { ok: true as const, value: value.trim() } : { ok: false as const, problem };
  };
  return {
    type: 'http(s) URL or null',
    fromYaml: check,
    fromText: (text) => check(text.trim() === '' || text.trim() === 'null' ? null : text),
  };
}

/** a2a.tls: `{cert, key}` file paths, or null. */
export function tlsKind(): ValueKind<Tls> {
  return {
    type: '{cert, key} file paths or null',
    fromYaml: (value) =>
      shaped(() => {
        if (value === null) return null;
        const tls = closedMapping(value, ['cert', 'key'], [], 'a mapping with cert and key');
        return { cert: fileAt(tls['cert'], ['cert']), key: fileAt(tls['key'], ['key']) };
      }),
    resolveSecretsIn: (tls) => tls,
  };
}

function fileAt(value: unknown, at: SubPath): string {
  if (value === undefined || value === null) return problemAt(at, 'expected a file path');
  if (typeof value !== 'string') return problemAt(at, `expected a file path (a string), got ${showValue(value)}`);
  return nameAt(value, at);
}

/** a2a.principals: an ordered list; bearer values resolve `{{secret:NAME}}` and are registered for redaction. */
export function principalsKind(): ValueKind<Principals> {
  return {
    type: 'list of principals',
    fromYaml: (value) => shaped(() => readPrincipals(value)),
    resolveSecretsIn: (principals, resolve) =>
      principals.map((p, index) =>
        'bearer' in p.match
          ? { ...p, match: { bearer: resolve(p.match.bearer, [index, 'match', 'bearer'], true) } }
          : p,
      ),
  };
}

function readPrincipals(value: unknown): A2aPrincipalConfig[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return problemAt([], 'expected a list of principals');
  const seen = new Map<string, number>();
  return value.map((item, index) => {
    const principal = readPrincipal(item, index);
    const key = `${principal.role}:${principal.id}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) problemAt([index, 'id'], `"${principal.id}" already names principals[${earlier}]`);
    seen.set(key, index);
    return principal;
  });
}

function readPrincipal(value: unknown, index: number): A2aPrincipalConfig {
  const given = closedMapping(value, PRINCIPAL_KEYS, [index], 'a mapping with id, role and match');
  if (given['id'] === undefined) problemAt([index], 'expected an id');
  const id = nameAt(given['id'], [index, 'id']);
  if (!PRINCIPAL_ID.test(id)) problemAt([index, 'id'], 'an id may hold only letters, digits, _ . @ and -');
  const role = choiceAt(given['role'], PRINCIPAL_ROLES, [index, 'role']);
  const grants = textListAt(given['grants'], [index, 'grants']);
  grants.forEach((grant, i) => {
    if (!GRANT.test(grant)) problemAt([index, 'grants', i], 'expected a tool name, "*" or "prefix*"');
  });
  const principal: A2aPrincipalConfig = { id, role, match: readMatch(given['match'], [index, 'match']), grants };
  if (given['quotas'] !== undefined && given['quotas'] !== null) {
    principal.quotas = readQuotas(given['quotas'], [index, 'quotas']);
  }
  return principal;
}

function readQuotas(value: unknown, at: SubPath): PrincipalQuotas {
  const given = closedMapping(value, ['budget', ...COUNTED_QUOTAS], at, 'a mapping of quotas');
  const quotas: PrincipalQuotas = {};
  if (given['budget'] !== undefined && given['budget'] !== null) {
    quotas.budget = readBudget(given['budget'], [...at, 'budget']);
  }
  for (const key of COUNTED_QUOTAS) {
    const limit = given[key];
    if (limit === undefined || limit === null) continue;
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
      problemAt([...at, key], `expected a positive integer, got ${showValue(limit)}`);
    }
    quotas[key] = limit;
  }
  return quotas;
}

function readMatch(value: unknown, at: SubPath): A2aPrincipalConfig['match'] {
  if (value === undefined) return problemAt(at, 'expected {bearer: "{{secret:NAME}}"} or {any: true}');
  const match = closedMapping(value, ['bearer', 'any'], at, 'a mapping with bearer or any');
  const hasBearer = match['bearer'] !== undefined;
  if (hasBearer === (match['any'] !== undefined)) {
    return problemAt(at, hasBearer ? 'give bearer or any, not both' : 'expected bearer or any');
  }
  if (!hasBearer) {
    return match['any'] === true ? { any: true } : problemAt([...at, 'any'], 'expected true');
  }
  const bearer = textAt(match['bearer'], [...at, 'bearer']);
  return bearer.trim() === '' ? problemAt([...at, 'bearer'], 'expected a token') : { bearer };
}

/** Cross-key problems of the a2a section, each `<origin>: <key path>: <problem>`. */
export function checkA2a(config: Readonly<Config>, originOf: OriginOf): string[] {
  const { listen, tls, principals } = config.a2a;
  const problems: string[] = [];
  const report = (path: string, problem: string): void => {
    const origin = originOf(path);
    problems.push(`${origin === undefined ? '' : `${origin}: `}${path}: ${problem}`);
  };
  if (listen === null) {
    if (tls !== null) report('a2a.tls', 'only for an https a2a.listen');
    if (config.a2a.pairing.enabled) report('a2a.pairing.enabled', 'needs a2a.listen (pairing signs in to its web UI)');
    return problems;
  }
  const url = new URL(listen);
  const bearer = principals.some((p) => 'bearer' in p.match);
  if (!isLoopbackHost(url.hostname) && !bearer) {
    report('a2a.listen', 'a non-loopback listener needs authentication (a2a.principals with a bearer)');
  }
  if (url.protocol === 'https:' && tls === null) report('a2a.listen', 'an https listener needs a2a.tls {cert, key}');
  if (url.protocol === 'http:' && tls !== null) report('a2a.tls', 'only for an https a2a.listen');
  return problems;
}
