// The key table rendered for people: path, type, default, env variable and flag of every key (docs/reference/config.md).
// Pure: reads only the schema.
import { formatByteSize } from './byteSize.js';
import { formatDuration } from './duration.js';
import { FLAG_KEYS, flagName } from './envSource.js';
import { DEFAULT_STORE_PATH, envNameOf, KEY_PATHS, KEYS } from './schema.js';

export interface ConfigKeyDoc {
  path: string;
  type: string;
  /** The default as a user would write it: `"agentd"`, `4`, `120s`, `[]`, `null`. */
  default: string;
  /** The environment variable that sets it, or null when it cannot be set from the environment. */
  env: string | null;
  /** The CLI flag that sets it, if any (`--deadline`). */
  flag: string | null;
  doc: string;
}

/** Every config key with its type, default, env variable, flag and one-line doc, in table order. */
export function describeConfigKeys(): ConfigKeyDoc[] {
  const flags = Object.entries(FLAG_KEYS) as [keyof typeof FLAG_KEYS, string][];
  const flagOf = new Map(flags.map(([flag, path]) => [path, flagName(flag)]));
  return KEY_PATHS.map((path) => {
    const spec = KEYS[path];
    return {
      path,
      type: spec.kind.type,
      default: renderDefault(path, spec.kind.type, spec.default),
      env: spec.kind.fromText ? envNameOf(path) : null,
      flag: flagOf.get(path) ?? null,
      doc: spec.doc,
    };
  });
}

function renderDefault(path: string, type: string, value: unknown): string {
  if (path === 'store.path') return `$AGENTD_STATE_DIR, else ${DEFAULT_STORE_PATH}`;
  if (type === 'duration' && typeof value === 'number') return formatDuration(value);
  if (type.startsWith('size in bytes') && typeof value === 'number') return formatByteSize(value);
  return JSON.stringify(value);
}
