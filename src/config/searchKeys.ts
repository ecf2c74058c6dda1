// The `search.provider` keys: the web search API the `search.query` workflow step asks (producers reference §2.4
// lists the kind; agentd maps it to a search tool). One provider shape: a SearXNG-compatible JSON API
// (`GET <url>?q=…&format=json`), the key optional and sent as a bearer token. A configured workflow whose
// `search.query` step has no provider to ask is refused here, at load, naming the step and the missing key.
import type { WorkflowDef } from '../domain/workflow.js';
import { type Coerced, nullableStringKind, nullableUrlKind, type ValueKind } from './kinds.js';
import type { KeyTable } from './schema.js';
import { everyStep } from './workflowSteps.js';

export interface SearchConfig {
  provider: {
    /** The provider's search endpoint (SearXNG: `https://host/search`); null: no provider. Default null. */
    url: string | null;
    /** Bearer token (`{{secret:NAME}}`); null: none. Default null. */
    key: string | null;
  };
}

/**
 * A URL or null that holds no `user:password@`: a fetch error quotes the URL, and a step error stores it. The value is
 * not echoed (it holds the credentials).
 */
function credentialFreeUrlKind(): ValueKind<string | null> {
  const url = nullableUrlKind();
  const check = (coerced: Coerced<string | null>): Coerced<string | null> => {
    if (!coerced.ok || coerced.value === null) return coerced;
    const parsed = new URL(coerced.value);
    return parsed.username === '' && parsed.password === ''
      ? coerced
      : { ok: false, problem: 'must not hold credentials (user:password@): give the token in search.provider.key' };
  };
  return {
    ...url,
    fromYaml: (v) => check(url.fromYaml(v)),
    fromText: (t) => check(url.fromText?.(t) ?? url.fromYaml(t)),
  };
}

export const SEARCH_KEYS: Pick<KeyTable, 'search.provider.url' | 'search.provider.key'> = {
  'search.provider.url': {
    kind: credentialFreeUrlKind(),
    default: null,
    doc: 'SearXNG-compatible JSON search endpoint the search.query workflow step asks; null = none.',
  },
  'search.provider.key': {
    kind: nullableStringKind(),
    default: null,
    doc: "The search provider's bearer token; use {{secret:NAME}}.",
    sensitive: true,
  },
};

/** Configured `search.query` steps (top level and in bodies) with no provider to ask. */
export function checkSearchSteps(defs: readonly WorkflowDef[], provider: SearchConfig['provider']): string[] {
  if (provider.url !== null) return [];
  const problems: string[] = [];
  for (const def of defs)
    for (const step of everyStep(def.steps))
      if (step.kind === 'search.query')
        problems.push(
          `workflow "${def.name}" step "${step.id}": search.query needs a search provider (search.provider.url is not set)`,
        );
  return problems;
}
