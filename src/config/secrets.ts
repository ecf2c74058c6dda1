// `{{secret:NAME}}` substitution from the environment, inside strings, lists and map values. Pure: it reports the
// secrets it used and the names it could not find; the caller registers values for redaction and words errors.

const REFERENCE = /\{\{\s*secret:([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

export interface SecretResolution {
  value: unknown;
  /** Names of the secrets substituted, with their values (for redaction only; never put in a message). */
  used: { name: string; value: string }[];
  /** Names referenced but unset or empty in the environment. */
  missing: string[];
}

/** Replaces every `{{secret:NAME}}` in `value` (recursively) by env[NAME]. */
export function resolveSecrets(value: unknown, env: Record<string, string | undefined>): SecretResolution {
  const result: SecretResolution = { value: undefined, used: [], missing: [] };
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return substitute(v, env, result);
    if (Array.isArray(v)) return v.map(visit);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, visit(item)]));
    }
    return v;
  };
  result.value = visit(value);
  return result;
}

function substitute(text: string, env: Record<string, string | undefined>, result: SecretResolution): string {
  return text.replace(REFERENCE, (reference, name: string) => {
    const secret = env[name];
    if (secret === undefined || secret === '') {
      if (!result.missing.includes(name)) result.missing.push(name);
      return reference;
    }
    result.used.push({ name, value: secret });
    return secret;
  });
}
