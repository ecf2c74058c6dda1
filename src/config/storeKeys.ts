// Cross-key checks of the store section (issue 19): a PostgreSQL store needs its URL, and its URL must be one.
// Pure: words the problem, never quotes the URL (it carries a password).
import type { OriginOf } from './roleRules.js';
import type { Config } from './types.js';

/** Every store problem, `<origin>: <key path>: <problem>`. */
export function checkStore(config: Readonly<Config>, originOf: OriginOf): string[] {
  const { kind, url } = config.store;
  const at = (path: string): string => {
    const origin = originOf(path);
    return origin === undefined ? path : `${origin}: ${path}`;
  };
  if (kind !== 'postgres') return [];
  if (url === null) return [`${at('store.kind')}: postgres needs store.url (e.g. {{secret:PG_URL}})`];
  if (!/^postgres(ql)?:\/\/[^/]/.test(url)) {
    return [
      `${at('store.url')}: expected a postgres://host/database URL (the value is not shown: it may hold a password)`,
    ];
  }
  return [];
}
