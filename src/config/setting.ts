// One raw assignment of a known key from one source (a YAML file line, an env variable, a flag), before coercion.
// Plain data; compile.ts resolves secrets in it, coerces it by the key's kind and layers it.

export interface Setting {
  /** A known key path, e.g. `limits.run.steps`. */
  path: string;
  /** A YAML value (when `text` is false) or the raw text of an env variable or flag. */
  value: unknown;
  /** True for env/flag text, coerced with the kind's fromText. */
  text: boolean;
  /** Where it came from, the prefix of every message about it: `a.yaml:12`, `AGENTD_LIMITS_RUN_STEPS`, `--deadline`. */
  origin: string;
  /** Whether `{{secret:NAME}}` references in it are resolved (files and env, not flags). */
  secrets: boolean;
}
