// Settings from the environment (`AGENTD_<PATH>`, matched against the key table, so unrelated AGENTD_* variables
// are ignored) and from the CLI flags that map onto keys. No coercion here.
import { envNameOf, KEY_PATHS, KEYS } from './schema.js';
import type { Setting } from './setting.js';
import type { ConfigFlags } from './types.js';

/** The flags that set config keys, and the key each sets. */
export const FLAG_KEYS: Readonly<Record<keyof ConfigFlags, string>> = {
  prompt: 'agent.prompt',
  instruction: 'agent.instruction',
  model: 'intelligence.model',
  intelligence: 'intelligence.endpoints',
  deadline: 'limits.run.deadline',
};

/** One setting per `AGENTD_<PATH>` variable that names a key settable from text. */
export function readEnvSettings(env: Record<string, string | undefined>): Setting[] {
  const settings: Setting[] = [];
  for (const path of KEY_PATHS) {
    if (!KEYS[path].kind.fromText) continue;
    const name = envNameOf(path);
    const value = env[name];
    if (value !== undefined) settings.push({ path, value, text: true, origin: name, secrets: true });
  }
  return settings;
}

/** One setting per flag given; flag text is taken literally (no secret references). */
export function readFlagSettings(flags: ConfigFlags): Setting[] {
  const settings: Setting[] = [];
  for (const [flag, path] of Object.entries(FLAG_KEYS) as [keyof ConfigFlags, string][]) {
    const value = flags[flag];
    if (value !== undefined) settings.push({ path, value, text: true, origin: `--${flag}`, secrets: false });
  }
  return settings;
}
