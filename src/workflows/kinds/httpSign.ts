// `http.sign` (producers reference §2.4 lists the field; agentd parses it and never reads it): an HMAC of the exact
// body sent, keyed by a `{{secret:NAME}}` the config layer resolves at send time — the key is never in the
// definition, the run record, an event or an error (a literal key would be stored with the definition: refused).
import { createHmac } from 'node:crypto';

const ALGORITHMS = ['sha256', 'sha512', 'sha1'] as const;
const SIGN_FIELDS = new Set(['key', 'header', 'algorithm']);
const SECRET_ONLY = /^\{\{\s*secret:[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}$/;
export const DEFAULT_SIGN_HEADER = 'X-Signature-256';

/** Load problems of a step's `sign` field. */
export function signProblems(sign: unknown): string[] {
  if (sign === undefined) return [];
  if (sign === null || typeof sign !== 'object' || Array.isArray(sign))
    return ['http.sign must be a mapping {key, header?, algorithm?}'];
  const o = sign as Record<string, unknown>;
  const problems = Object.keys(o)
    .filter((k) => !SIGN_FIELDS.has(k))
    .map((k) => `http.sign: unknown field "${k}" (allowed: key, header, algorithm)`);
  if (typeof o['key'] !== 'string' || !SECRET_ONLY.test(o['key']))
    problems.push('http.sign.key must be one {{secret:NAME}} reference (a literal key would be stored)');
  if (o['header'] !== undefined && (typeof o['header'] !== 'string' || !/^[A-Za-z0-9-]+$/.test(o['header'])))
    problems.push('http.sign.header must be a header name');
  if (o['algorithm'] !== undefined && !ALGORITHMS.includes(o['algorithm'] as never))
    problems.push(`http.sign.algorithm must be one of ${ALGORITHMS.join(', ')}`);
  return problems;
}

/**
 * The signature header of `body`: `<header>: <algorithm>=<hex HMAC>`. `secret` resolves the key reference (throws
 * naming the secret, never its value). Errors are short texts free of the key.
 */
export function signatureHeader(
  sign: Readonly<Record<string, unknown>>,
  body: string,
  secret: ((text: string) => string) | undefined,
): { ok: true; name: string; value: string } | { ok: false; error: string } {
  if (!secret) return { ok: false, error: 'http.sign: secrets are not resolved in this process' };
  let key: string;
  try {
    key = secret(String(sign['key']));
  } catch (err) {
    return { ok: false, error: `http.sign: ${(err as Error).message}` };
  }
  const algorithm = typeof sign['algorithm'] === 'string' ? sign['algorithm'] : 'sha256';
  const hex = createHmac(algorithm, key).update(body).digest('hex');
  const name = typeof sign['header'] === 'string' ? sign['header'] : DEFAULT_SIGN_HEADER;
  return { ok: true, name, value: `${algorithm}=${hex}` };
}
