// The structured intelligence kinds: `providers` (named connections), `models` (declared aliases) and `routes`,
// plus the scalar kinds of `roles`. Pure: shape checks only; references between keys are checked in roleRules.ts.
import { isCredentialHeader } from '../obs/redactor.js';
import { DIALECTS, MODEL_FAMILIES } from '../protocol/frames.js';
import { AWS_REGION_PATTERN } from './awsCredentials.js';
import { type Coerced, checkUrl, type SecretResolver, type SubPath, showValue, type ValueKind } from './kinds.js';
import { choiceAt, closedMapping, isMapping, nameAt, problemAt, shaped, textAt, textMapAt } from './mappings.js';
import type { AuthConfig, ModelDecl, ProviderConfig } from './types.js';

type Providers = Record<string, ProviderConfig>;
type Models = Record<string, ModelDecl>;

const MODEL_KINDS = ['chat', 'reasoning', 'decision'] as const;
const EFFORTS = ['low', 'medium', 'high'] as const;
export const STRUCTURED_OUTPUT = ['native', 'prompt'] as const;
export const PROMPT_CACHE_KEY = ['auto', 'on', 'off'] as const;

const PROVIDER_KEYS = ['endpoints', 'dialect', 'token', 'headers', 'structured_output', 'prompt_cache_key', 'auth'];
const AUTH_KEYS = ['kind', 'region', 'profile', 'access_key_id', 'secret_access_key', 'session_token'];
const AUTH_SECRETS = ['access_key_id', 'secret_access_key', 'session_token'] as const;
const MODEL_KEYS = ['model', 'kind', 'family', 'provider', 'reasoning', 'window', 'fallback'];
/** Provider names and model aliases: what a role, a route, `provider` or `fallback` can name. */
const NAME = /^[A-Za-z0-9_.-]+$/;

function checkName(name: string, at: SubPath, what: string): string {
  return NAME.test(name) ? name : problemAt(at, `${what} may hold only letters, digits, _, . and -`);
}

/** A mapping of names to entries read by `read`; null ⇒ {}. */
function readNamed<V>(value: unknown, what: string, read: (entry: unknown, at: SubPath) => V): Record<string, V> {
  if (value === null) return {};
  if (!isMapping(value)) return problemAt([], `expected a mapping of ${what}s`);
  const out: Record<string, V> = {};
  for (const [name, entry] of Object.entries(value)) out[checkName(name, [name], `a ${what}`)] = read(entry, [name]);
  return out;
}

/**
 * intelligence.providers: NAME → {endpoints, dialect?, token?, headers?, structured_output?, prompt_cache_key?, auth?};
 * merges by name. A provider that omits structured_output or prompt_cache_key gets the top-level one at compile.
 */
export function providersKind(): ValueKind<Providers> {
  return {
    type: 'map of provider name to {endpoints, dialect, token, headers, structured_output, auth}',
    merges: true,
    fromYaml: (value) => shaped(() => readNamed(value, 'provider name', readProvider)),
    resolveSecretsIn: resolveProviderSecrets,
  };
}

function readProvider(value: unknown, at: SubPath): ProviderConfig {
  const provider = closedMapping(value, PROVIDER_KEYS, at, 'a mapping with endpoints');
  const dialect = provider['dialect'] == null ? 'openai' : choiceAt(provider['dialect'], DIALECTS, [...at, 'dialect']);
  // Bedrock may leave out endpoints: the region's runtime host is filled in when the config compiles.
  const endpoints =
    dialect === 'bedrock' && provider['endpoints'] == null
      ? []
      : readEndpoints(provider['endpoints'], [...at, 'endpoints']);
  const token = provider['token'] ?? null;
  const read = {
    endpoints,
    dialect,
    token: token === null ? null : textAt(token, [...at, 'token']),
    headers: textMapAt(provider['headers'], [...at, 'headers']),
    ...(provider['auth'] == null ? {} : { auth: readAuth(provider['auth'], [...at, 'auth']) }),
    ...(provider['structured_output'] == null
      ? {}
      : {
          structured_output: choiceAt(provider['structured_output'], STRUCTURED_OUTPUT, [...at, 'structured_output']),
        }),
    ...(provider['prompt_cache_key'] == null
      ? {}
      : { prompt_cache_key: choiceAt(provider['prompt_cache_key'], PROMPT_CACHE_KEY, [...at, 'prompt_cache_key']) }),
  };
  // structured_output, when absent, is inherited at compile time (compile.ts inheritStructuredOutput).
  return read as ProviderConfig;
}

function readEndpoints(value: unknown, at: SubPath): string[] {
  const list = value == null ? [] : Array.isArray(value) ? value : [value];
  if (list.length === 0) return problemAt(at, 'a provider needs at least one endpoint (a URL or a list of URLs)');
  return list.map((item, i) => {
    const place = Array.isArray(value) ? [...at, i] : at;
    return checkUrl(textAt(item, place)) === null
      ? (item as string)
      : problemAt(place, 'expected an http:// or https:// URL');
  });
}

/** Secrets resolve in the token and in header values; the token and credential-named headers are registered. */
function resolveProviderSecrets(providers: Providers, resolve: SecretResolver): Providers {
  const out: Providers = {};
  for (const [name, provider] of Object.entries(providers)) {
    const headers = Object.entries(provider.headers).map(([k, v]) => [
      k,
      resolve(v, [name, 'headers', k], isCredentialHeader(k)),
    ]);
    out[name] = {
      ...provider,
      headers: Object.fromEntries(headers),
      token: provider.token === null ? null : resolve(provider.token, [name, 'token'], true),
      ...(provider.auth ? { auth: resolveAuthSecrets(provider.auth, resolve, [name, 'auth']) } : {}),
    };
  }
  return out;
}

/** `auth: {kind: aws, region?, profile?, access_key_id?, secret_access_key?, session_token?}`; null ⇒ null. */
function readAuth(value: unknown, at: SubPath): AuthConfig | null {
  if (value == null) return null;
  const auth = closedMapping(value, AUTH_KEYS, at, 'a mapping with kind: aws');
  if (auth['kind'] != null) choiceAt(auth['kind'], ['aws'], [...at, 'kind']);
  const text = (key: string): string | null => (auth[key] == null ? null : nameAt(auth[key], [...at, key]));
  const region = text('region');
  if (region !== null && !AWS_REGION_PATTERN.test(region)) {
    problemAt([...at, 'region'], `expected an AWS region id like us-east-1, got ${showValue(region)}`);
  }
  return {
    kind: 'aws',
    region,
    profile: text('profile'),
    access_key_id: text('access_key_id'),
    secret_access_key: text('secret_access_key'),
    session_token: text('session_token'),
  };
}

/** Secrets resolve in the three key fields, each registered for redaction. */
function resolveAuthSecrets(auth: AuthConfig | null, resolve: SecretResolver, at: SubPath): AuthConfig | null {
  if (auth === null) return null;
  const out = { ...auth };
  for (const key of AUTH_SECRETS) {
    const value = auth[key];
    if (value !== null) out[key] = resolve(value, [...at, key], true);
  }
  return out;
}

/** intelligence.auth: Bedrock's AWS credentials and region, or null. */
export function authKind(): ValueKind<AuthConfig | null> {
  return {
    type: '{kind: aws, region, profile, access_key_id, secret_access_key, session_token} or null',
    fromYaml: (value) => shaped(() => readAuth(value, [])),
    resolveSecretsIn: (auth, resolve) => resolveAuthSecrets(auth, resolve, []),
  };
}

/**
 * intelligence.models: ALIAS → {model, kind?, family?, provider?, reasoning?, window?, fallback?}; merges by alias.
 * `family: claude` applies Anthropic's request rules on Bedrock to an id without "claude" in it (an ARN).
 */
export function modelsKind(): ValueKind<Models> {
  return {
    type: 'map of model alias to {model, kind, family, provider, reasoning, window, fallback}',
    merges: true,
    fromYaml: (value) => shaped(() => readNamed(value, 'model alias', readModel)),
    resolveSecretsIn: (models) => models,
  };
}

function readModel(value: unknown, at: SubPath): ModelDecl {
  const decl = closedMapping(value, MODEL_KEYS, at, 'a mapping with model');
  if (decl['model'] == null) problemAt(at, 'expected model (the wire model id)');
  const kind = decl['kind'] == null ? 'chat' : choiceAt(decl['kind'], MODEL_KINDS, [...at, 'kind']);
  return {
    model: nameAt(decl['model'], [...at, 'model']),
    kind,
    family: decl['family'] == null ? null : choiceAt(decl['family'], MODEL_FAMILIES, [...at, 'family']),
    provider: optionalName(decl['provider'], [...at, 'provider'], 'a provider name'),
    reasoning: readReasoning(decl['reasoning'], kind, [...at, 'reasoning']),
    window: readWindow(decl['window'], [...at, 'window']),
    fallback: optionalName(decl['fallback'], [...at, 'fallback'], 'a model alias'),
  };
}

function optionalName(value: unknown, at: SubPath, what: string): string | null {
  return value == null ? null : checkName(nameAt(value, at), at, what);
}

function readReasoning(value: unknown, kind: ModelDecl['kind'], at: SubPath): ModelDecl['reasoning'] {
  if (value == null) return null;
  if (kind !== 'reasoning') return problemAt(at, `only for kind reasoning (this model is ${kind})`);
  const reasoning = closedMapping(value, ['effort'], at, 'a mapping with effort');
  return { effort: choiceAt(reasoning['effort'], EFFORTS, [...at, 'effort']) };
}

function readWindow(value: unknown, at: SubPath): number | null {
  if (value == null) return null;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
    ? value
    : problemAt(at, `expected a positive integer (tokens), got ${showValue(value)}`);
}

/** intelligence.routes: ALIAS → the criterion preflight reads; merges by alias. */
export function routesKind(): ValueKind<Record<string, string>> {
  const read = (value: unknown): Record<string, string> => {
    if (value === null) return {};
    if (!isMapping(value)) return problemAt([], 'expected a mapping of model aliases to criteria');
    return Object.fromEntries(Object.entries(value).map(([alias, criterion]) => [alias, nameAt(criterion, [alias])]));
  };
  return {
    type: 'map of model alias to criterion',
    merges: true,
    fromYaml: (value) => shaped(() => read(value)),
    resolveSecretsIn: (routes) => routes,
  };
}

/** A role: a model alias, or null (the role's default). From text, "" and "null" mean null. */
export function roleKind(): ValueKind<string | null> {
  const check = (v: unknown): Coerced<string | null> => {
    if (v === null) return { ok: true, value: null };
    if (typeof v === 'string' && NAME.test(v)) return { ok: true, value: v };
    return { ok: false, problem: `expected a model alias, got ${showValue(v)}` };
  };
  return {
    type: 'model alias or null',
    fromYaml: check,
    fromText: (t) => check(t.trim() === '' || t.trim() === 'null' ? null : t.trim()),
  };
}

/** A number in [0, 1], or null. From text, "" and "null" mean null. */
export function confidenceKind(): ValueKind<number | null> {
  const check = (v: unknown, raw: unknown): Coerced<number | null> =>
    v === null || (typeof v === 'number' && v >= 0 && v <= 1)
      ? { ok: true, value: v }
      : { ok: false, problem: `expected a number in [0, 1] or null, got ${showValue(raw)}` };
  return {
    type: 'number in [0, 1] or null',
    fromYaml: (v) => check(v, v),
    fromText: (t) => {
      const text = t.trim();
      return check(text === '' || text === 'null' ? null : Number(text), t);
    },
  };
}
