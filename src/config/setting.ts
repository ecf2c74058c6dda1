// One raw assignment of a known key from one source (a YAML file line, an env variable, a flag), before coercion.
// Plain data; compile.ts resolves secrets in it, coerces it by the key's kind and layers it.
import type { SubPath } from './kinds.js';

export interface Setting {
  /** A known key path, e.g. `limits.run.steps`. */
  path: string;
  /** A YAML value (source `file`) or the raw text of an env variable or flag. */
  value: unknown;
  /** `file` values are coerced with the kind's fromYaml, `env` with fromText, `flag` with fromFlag or fromText. */
  source: 'file' | 'env' | 'flag';
  /** Where it came from, the prefix of every message about it: `a.yaml:12`, `AGENTD_LIMITS_RUN_STEPS`, `--deadline`. */
  origin: string;
  /** The origin of a place inside a structured value (`a.yaml:14` for `[1, 'action']`); absent ⇒ `origin`. */
  locate?: (at: SubPath) => string;
  /** Whether `{{secret:NAME}}` references in it are resolved (files and env, not flags). */
  secrets: boolean;
}
