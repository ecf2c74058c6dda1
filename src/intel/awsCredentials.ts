// AWS credentials and region for the bedrock dialect (reference §5.1: Bedrock is signed with SigV4): the config's
// `auth` keys first, then the standard environment variables, then a shared credentials profile. Pure: the
// environment, the home directory and the file reader are arguments; a problem names what is missing, never a value.
import type { AwsAuth } from '../protocol/frames.js';

export type { AwsAuth } from '../protocol/frames.js';

/** The `auth` mapping as declared (`kind: aws`); every field optional. */
export interface AwsAuthDecl {
  region: string | null;
  profile: string | null;
  access_key_id: string | null;
  secret_access_key: string | null;
  session_token: string | null;
}

export const NO_AWS_AUTH: Readonly<AwsAuthDecl> = Object.freeze({
  region: null,
  profile: null,
  access_key_id: null,
  secret_access_key: null,
  session_token: null,
});

export type AwsResolution =
  | { ok: true; auth: AwsAuth; source: 'config' | 'env' | 'profile' }
  | { ok: false; problem: string };

export interface AwsSources {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** The file's text, or null when it does not exist. */
  readFile(path: string): string | null;
}

type Keys = Pick<AwsAuth, 'access_key_id' | 'secret_access_key' | 'session_token'>;
type Found = { ok: true; keys: Keys; region: string | null; source: 'config' | 'env' | 'profile' };
type Lookup = Found | { ok: false; problem: string };

/** The shared credentials file: `AWS_SHARED_CREDENTIALS_FILE`, else `<home>/.aws/credentials`. */
export function credentialsFilePath(env: AwsSources['env'], home: string): string {
  const named = env['AWS_SHARED_CREDENTIALS_FILE'];
  return named !== undefined && named !== '' ? named : `${home.replace(/\/+$/, '')}/.aws/credentials`;
}

/** The keys of one `[profile]` section of an INI credentials file; null when the section is absent. */
export function readProfile(text: string, profile: string): Record<string, string> | null {
  let section: string | null = null;
  let found: Record<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      section = header[1] ?? null;
      if (section === profile) found ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== profile || eq < 0 || found === null) continue;
    found[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return found;
}

function fromConfig(decl: AwsAuthDecl): Lookup | null {
  if (decl.access_key_id === null && decl.secret_access_key === null) return null;
  if (decl.access_key_id === null || decl.secret_access_key === null) {
    return { ok: false, problem: 'auth needs both access_key_id and secret_access_key (or neither)' };
  }
  const keys = { access_key_id: decl.access_key_id, secret_access_key: decl.secret_access_key };
  return { ok: true, keys: { ...keys, session_token: decl.session_token }, region: null, source: 'config' };
}

function fromEnv(env: AwsSources['env']): Lookup | null {
  const id = env['AWS_ACCESS_KEY_ID'];
  const secret = env['AWS_SECRET_ACCESS_KEY'];
  if (!id || !secret) return null;
  const token = env['AWS_SESSION_TOKEN'] || null;
  return {
    ok: true,
    keys: { access_key_id: id, secret_access_key: secret, session_token: token },
    region: null,
    source: 'env',
  };
}

function fromProfile(profile: string, src: AwsSources): Lookup {
  const path = credentialsFilePath(src.env, src.home);
  const text = src.readFile(path);
  const entries = text === null ? null : readProfile(text, profile);
  const id = entries?.['aws_access_key_id'];
  const secret = entries?.['aws_secret_access_key'];
  if (!id || !secret) {
    const why = text === null ? `${path} does not exist` : `profile '${profile}' in ${path} has no access keys`;
    return {
      ok: false,
      problem: `no AWS credentials: ${why}; set auth.access_key_id and auth.secret_access_key ({{secret:…}}), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile`,
    };
  }
  const keys = { access_key_id: id, secret_access_key: secret, session_token: entries?.['aws_session_token'] || null };
  return { ok: true, keys, region: entries?.['region'] || null, source: 'profile' };
}

/**
 * Credentials: `auth.access_key_id`/`secret_access_key`, else the named `auth.profile`, else `AWS_ACCESS_KEY_ID` /
 * `AWS_SECRET_ACCESS_KEY` (/ `AWS_SESSION_TOKEN`), else the `AWS_PROFILE` (or `default`) profile. Region:
 * `auth.region`, else `AWS_REGION`, `AWS_DEFAULT_REGION`, else the profile's `region`.
 */
export function resolveAwsAuth(decl: AwsAuthDecl, src: AwsSources): AwsResolution {
  const found =
    fromConfig(decl) ??
    (decl.profile !== null ? fromProfile(decl.profile, src) : null) ??
    fromEnv(src.env) ??
    fromProfile(src.env['AWS_PROFILE'] || 'default', src);
  if (!found.ok) return found;
  const region = decl.region ?? (src.env['AWS_REGION'] || src.env['AWS_DEFAULT_REGION'] || found.region);
  if (!region) return { ok: false, problem: 'no AWS region: set auth.region, or AWS_REGION in the environment' };
  return { ok: true, auth: { region, ...found.keys }, source: found.source };
}
