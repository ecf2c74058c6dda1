// AWS credentials and region for the bedrock dialect (reference §5.1: Bedrock is signed with SigV4): keys from the
// config's `auth`, the standard environment variables, or the shared credentials file; the region from `auth`, the
// environment, or the AWS config file. Pure: the environment, the home directory and the file reader are arguments;
// a problem names what is missing or where a bad value came from, never a key.
import type { AwsAuth } from '../protocol/frames.js';
import type { AuthConfig } from './types.js';

export type { AwsAuth } from '../protocol/frames.js';

/** `auth` with nothing declared (a bedrock connection without an `auth` mapping). */
export const NO_AWS_AUTH: Readonly<AuthConfig> = Object.freeze({
  kind: 'aws',
  region: null,
  profile: null,
  access_key_id: null,
  secret_access_key: null,
  session_token: null,
});

/** An AWS region id such as `us-east-1`, `eu-central-2` or `us-gov-west-1`. */
export const AWS_REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d+$/;

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
type Found = { ok: true; keys: Keys; source: 'config' | 'env' | 'profile' };
type Lookup = Found | { ok: false; problem: string };

/** Profile settings that name a way of getting keys agentd does not implement (docs/guide/models.md, "Claude on Bedrock"). */
const UNSUPPORTED = ['credential_process', 'sso_session', 'sso_start_url', 'role_arn', 'web_identity_token_file'];

function fileIn(env: AwsSources['env'], name: string, home: string, fallback: string): string {
  const named = env[name];
  return named !== undefined && named !== '' ? named : `${home.replace(/\/+$/, '')}/.aws/${fallback}`;
}

/** The shared credentials file: `AWS_SHARED_CREDENTIALS_FILE`, else `<home>/.aws/credentials`. */
export function credentialsFilePath(env: AwsSources['env'], home: string): string {
  return fileIn(env, 'AWS_SHARED_CREDENTIALS_FILE', home, 'credentials');
}

/** The AWS config file: `AWS_CONFIG_FILE`, else `<home>/.aws/config`. */
export function configFilePath(env: AwsSources['env'], home: string): string {
  return fileIn(env, 'AWS_CONFIG_FILE', home, 'config');
}

/** The keys of the INI section whose header is exactly one of `headers`; null when there is none. */
export function readSection(text: string, headers: readonly string[]): Record<string, string> | null {
  let inside = false;
  let found: Record<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      inside = headers.includes((header[1] ?? '').replace(/\s+/g, ' '));
      if (inside) found ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (!inside || eq < 0 || found === null) continue;
    found[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return found;
}

/** A profile's section of the config file: `[profile X]`, and for `default` also `[default]`. */
function configSection(profile: string): string[] {
  return profile === 'default' ? ['default', 'profile default'] : [`profile ${profile}`];
}

function fromConfig(decl: AuthConfig): Lookup | null {
  if (decl.access_key_id === null && decl.secret_access_key === null) return null;
  if (decl.access_key_id === null || decl.secret_access_key === null) {
    return { ok: false, problem: 'auth needs both access_key_id and secret_access_key (or neither)' };
  }
  const keys = { access_key_id: decl.access_key_id, secret_access_key: decl.secret_access_key };
  return { ok: true, keys: { ...keys, session_token: decl.session_token }, source: 'config' };
}

function fromEnv(env: AwsSources['env']): Lookup | null {
  const id = env['AWS_ACCESS_KEY_ID'];
  const secret = env['AWS_SECRET_ACCESS_KEY'];
  if (!id || !secret) return null;
  const keys = { access_key_id: id, secret_access_key: secret, session_token: env['AWS_SESSION_TOKEN'] || null };
  return { ok: true, keys, source: 'env' };
}

/** Why a profile without keys has none: a source agentd does not support, or nothing at all. */
function missingKeys(profile: string, path: string, text: string | null, src: AwsSources): string {
  const configPath = configFilePath(src.env, src.home);
  const configText = src.readFile(configPath);
  const settings = {
    ...(configText === null ? {} : readSection(configText, configSection(profile))),
    ...(text === null ? {} : readSection(text, [profile])),
  };
  const unsupported = UNSUPPORTED.find((key) => key in settings);
  const fix =
    'set auth.access_key_id and auth.secret_access_key ({{secret:…}}), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile with keys';
  if (unsupported !== undefined) {
    return `profile '${profile}' gets its keys by ${unsupported}, which agentd does not support (only static keys); ${fix}`;
  }
  const why = text === null ? `${path} does not exist` : `profile '${profile}' in ${path} has no access keys`;
  return `no AWS credentials: ${why} (instance and container roles, SSO and credential_process are not supported); ${fix}`;
}

function fromProfile(profile: string, src: AwsSources): Lookup {
  const path = credentialsFilePath(src.env, src.home);
  const text = src.readFile(path);
  const entries = text === null ? null : readSection(text, [profile]);
  const id = entries?.['aws_access_key_id'];
  const secret = entries?.['aws_secret_access_key'];
  if (!id || !secret) return { ok: false, problem: missingKeys(profile, path, text, src) };
  const keys = { access_key_id: id, secret_access_key: secret, session_token: entries?.['aws_session_token'] || null };
  return { ok: true, keys, source: 'profile' };
}

/** The region and where it came from: `auth.region`, `AWS_REGION`, `AWS_DEFAULT_REGION`, the config file's profile. */
function regionOf(decl: AuthConfig, profile: string, src: AwsSources): { region: string; from: string } | null {
  if (decl.region !== null) return { region: decl.region, from: 'auth.region' };
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION']) {
    const value = src.env[name];
    if (value) return { region: value, from: name };
  }
  const path = configFilePath(src.env, src.home);
  const text = src.readFile(path);
  const sections = configSection(profile);
  const region = text === null ? undefined : readSection(text, sections)?.['region'];
  return region ? { region, from: `region of [${sections[0]}] in ${path}` } : null;
}

/**
 * Credentials: `auth.access_key_id`/`secret_access_key`, else the named `auth.profile`, else `AWS_ACCESS_KEY_ID` /
 * `AWS_SECRET_ACCESS_KEY` (/ `AWS_SESSION_TOKEN`), else the `AWS_PROFILE` (or `default`) profile of the credentials
 * file. Region: `auth.region`, else `AWS_REGION`, `AWS_DEFAULT_REGION`, else that profile's `region` in the AWS
 * config file; it must look like a region id.
 */
export function resolveAwsAuth(decl: AuthConfig, src: AwsSources): AwsResolution {
  const profile = decl.profile ?? (src.env['AWS_PROFILE'] || 'default');
  const found =
    fromConfig(decl) ??
    (decl.profile !== null ? fromProfile(decl.profile, src) : null) ??
    fromEnv(src.env) ??
    fromProfile(profile, src);
  if (!found.ok) return found;
  const region = regionOf(decl, profile, src);
  if (region === null) {
    return {
      ok: false,
      problem: `no AWS region: set auth.region, AWS_REGION in the environment, or region in [${configSection(profile)[0]}] of ${configFilePath(src.env, src.home)}`,
    };
  }
  if (!AWS_REGION_PATTERN.test(region.region)) {
    return {
      ok: false,
      problem: `${region.from}: '${region.region.slice(0, 40)}' is not an AWS region id (like us-east-1)`,
    };
  }
  return { ok: true, auth: { region: region.region, ...found.keys }, source: found.source };
}
