// Settings from the environment (`AGENTD_<PATH>`, matched against the key table, so unrelated AGENTD_* variables
// are ignored) and from the CLI flags that map onto keys. No coercion here.
import { envNameOf, KEY_PATHS, KEYS } from './schema.js';
import type { Setting } from './setting.js';
import type { ConfigFlags } from './types.js';

/** The flags that set config keys, and the key each sets. A repeatable flag gives one setting per value. */
export const FLAG_KEYS: Readonly<Record<keyof ConfigFlags, string>> = {
  prompt: 'agent.prompt',
  instruction: 'agent.instruction',
  model: 'intelligence.model',
  intelligence: 'intelligence.endpoints',
  deadline: 'limits.run.deadline',
  mcp: 'mcp.servers',
  stateDir: 'store.path',
};

/** agentd's own names for the watchdog's timeouts (reference §1.6): whole milliseconds, below `AGENTD_<PATH>`. */
const AGENTD_MS_NAMES: Readonly<Record<string, string>> = {
  AGENTD_PONG_TIMEOUT_MS: 'lifecycle.pong_timeout',
  AGENTD_PROGRESS_TIMEOUT_MS: 'lifecycle.progress_timeout',
};

/** One setting per `AGENTD_<PATH>` variable that names a key settable from text (and per agentd ms name). */
export function readEnvSettings(env: Record<string, string | undefined>): Setting[] {
  const settings: Setting[] = [];
  for (const [name, path] of Object.entries(AGENTD_MS_NAMES)) {
    const value = env[name]?.trim();
    if (value === undefined) continue;
    settings.push({
      path,
      value: /^\d+$/.test(value) ? `${value}ms` : value,
      source: 'env',
      origin: name,
      secrets: true,
    });
  }
  for (const path of KEY_PATHS) {
    if (!KEYS[path].kind.fromText) continue;
    const name = envNameOf(path);
    const value = env[name];
    if (value !== undefined) settings.push({ path, value, source: 'env', origin: name, secrets: true });
  }
  return settings;
}

/** The flag as typed: `stateDir` is `--state-dir`. */
export function flagName(flag: keyof ConfigFlags): string {
  return `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** One setting per flag value given; flag text is taken literally (no secret references). */
export function readFlagSettings(flags: ConfigFlags): Setting[] {
  const settings: Setting[] = [];
  for (const [flag, path] of Object.entries(FLAG_KEYS) as [keyof ConfigFlags, string][]) {
    const given = flags[flag];
    const values = given === undefined ? [] : Array.isArray(given) ? given : [given];
    for (const value of values) settings.push({ path, value, source: 'flag', origin: flagName(flag), secrets: false });
  }
  return settings;
}
