// Bedrock connections once the layers merged (reference §5.1: bedrock signs with SigV4): each bedrock connection's
// AWS credentials and region resolved (auth keys, the AWS environment, the AWS files) and its default endpoint
// filled in. Pure: the sources are an argument; a problem names the key and what is missing, never a value.
import type { Dialect } from '../protocol/frames.js';
import { type AwsSources, NO_AWS_AUTH, resolveAwsAuth } from './awsCredentials.js';
import type { OriginOf } from './roleRules.js';
import type { AuthConfig, Config } from './types.js';

interface Connection {
  dialect: Dialect;
  endpoints: string[];
  auth?: AuthConfig | null;
}

export interface SettledAws {
  problems: string[];
  /** Key values that came from the environment or a profile file: the caller registers them for redaction. */
  secrets: string[];
}

/** The default endpoint of a region: the Bedrock runtime host. */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/** Resolves one bedrock connection in place; returns its problem, if any. */
function settle(connection: Connection, src: AwsSources): { problem?: string; secrets: string[] } {
  const declared = connection.auth ?? NO_AWS_AUTH;
  const resolved = resolveAwsAuth(declared, src);
  if (!resolved.ok) return { problem: resolved.problem, secrets: [] };
  const { auth } = resolved;
  connection.auth = { ...declared, ...auth };
  if (connection.endpoints.length === 0) connection.endpoints = [bedrockEndpoint(auth.region)];
  const secrets = [auth.access_key_id, auth.secret_access_key, auth.session_token ?? ''].filter((s) => s !== '');
  return { secrets };
}

/**
 * Settles `intelligence` and every provider whose dialect is bedrock (mutates the unfrozen config). An `auth` on
 * another dialect is a problem: nothing would sign with it.
 */
export function settleAwsAuth(config: Config, originOf: OriginOf, src: AwsSources): SettledAws {
  const out: SettledAws = { problems: [], secrets: [] };
  const visit = (connection: Connection, path: string, origin: string | undefined): void => {
    const at = origin === undefined ? '' : `${origin}: `;
    if (connection.dialect !== 'bedrock') {
      if (connection.auth != null) out.problems.push(`${at}${path}.auth: only for dialect bedrock`);
      return;
    }
    const { problem, secrets } = settle(connection, src);
    if (problem !== undefined) out.problems.push(`${at}${path}.auth: ${problem}`);
    out.secrets.push(...secrets);
  };
  const intel = config.intelligence;
  visit(intel, 'intelligence', originOf('intelligence.auth') ?? originOf('intelligence.dialect'));
  for (const [name, provider] of Object.entries(intel.providers)) {
    visit(provider, `intelligence.providers.${name}`, originOf('intelligence.providers', [name]));
  }
  return out;
}
