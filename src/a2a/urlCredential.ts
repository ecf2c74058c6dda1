// A credential in a URL is refused on the listener's own routes (interfaces §5 case 12, §6.2): URLs end up in
// history, logs and Referer headers. Pure: the request target in, the offending parameter's name out.

/** Query parameters that carry a credential (agentd's page took `?bearer=`; the others are common spellings). */
const CREDENTIAL_PARAMS = ['bearer', 'token', 'access_token', 'api_key', 'apikey'];

/**
 * The name of the first credential-shaped query parameter of `target` (a request's path and query), or null.
 * Only the name is ever reported, never its value.
 */
export function credentialInUrl(target: string): string | null {
  const at = target.indexOf('?');
  if (at < 0) return null;
  const query = new URLSearchParams(target.slice(at + 1));
  for (const name of query.keys()) {
    if (CREDENTIAL_PARAMS.includes(name.toLowerCase())) return name.toLowerCase();
  }
  return null;
}

/** The answer's one line: what was refused and what to do instead. */
export function urlCredentialRefusal(param: string): string {
  return (
    `a credential in the URL (?${param}=) is refused: it would be kept in history and logs; ` +
    'sign in on the page (/ui) or send an Authorization: Bearer header'
  );
}
