// Credentials too short to be safe: a principal bearer must resist guessing, and a token shorter than the
// redactor's minimum could never be redacted (obs/redactor.ts; reference §1.5 step 2). Pure.
import type { OriginOf } from './roleRules.js';
import type { Config } from './types.js';

/** A principal's bearer is the only thing standing between the network and the agent. */
export const MIN_BEARER_CHARS = 16;
/** Model and MCP tokens: long enough that redacting them never touches ordinary words. */
export const MIN_TOKEN_CHARS = 8;

/** Every too-short credential, `<origin>: <key path>: <problem>`; the value itself is never quoted. */
export function checkSecretLengths(config: Readonly<Config>, originOf: OriginOf): string[] {
  const problems: string[] = [];
  const check = (value: string | null, min: number, path: string, at: (string | number)[], shown: string): void => {
    if (value === null || value.length >= min) return;
    const origin = originOf(path, at);
    problems.push(
      `${origin === undefined ? '' : `${origin}: `}${shown}: too short (${value.length} characters; at least ${min})`,
    );
  };
  config.a2a.principals.forEach((p, i) => {
    if ('bearer' in p.match) {
      check(
        p.match.bearer,
        MIN_BEARER_CHARS,
        'a2a.principals',
        [i, 'match', 'bearer'],
        `a2a.principals[${i}].match.bearer`,
      );
    }
  });
  check(config.intelligence.token, MIN_TOKEN_CHARS, 'intelligence.token', [], 'intelligence.token');
  for (const [name, provider] of Object.entries(config.intelligence.providers)) {
    const shown = `intelligence.providers.${name}.token`;
    check(provider.token, MIN_TOKEN_CHARS, 'intelligence.providers', [name, 'token'], shown);
  }
  for (const [name, server] of Object.entries(config.mcp.servers)) {
    if ('url' in server)
      check(server.token, MIN_TOKEN_CHARS, 'mcp.servers', [name, 'token'], `mcp.servers.${name}.token`);
  }
  return problems;
}
