// compileConfig: defaults < YAML files (in order) < AGENTD_* env < flags, secrets resolved, every value validated,
// one frozen Config out. It reads the config files and nothing else: no directory or file is created here.
import { resolve } from 'node:path';
import { DaemonError } from '../errors.js';
import { registerSecret } from '../obs/log.js';
import { readEnvSettings, readFlagSettings } from './envSource.js';
import type { Coerced } from './kinds.js';
import { buildTree, deepFreeze, layerValue } from './merge.js';
import { DEFAULT_STORE_PATH, KEY_PATHS, KEYS, keySpec } from './schema.js';
import { resolveSecrets } from './secrets.js';
import type { Setting } from './setting.js';
import type { Config, ConfigSources } from './types.js';
import { readYamlSource } from './yamlSource.js';

export { type ConfigKeyDoc, describeConfigKeys } from './describe.js';
export { formatDuration, parseDuration } from './duration.js';

const MAX_PROBLEMS = 10;

/**
 * Compiles the configuration once. Throws a DaemonError `config_invalid` whose message is one line: every problem
 * found (`<origin>: <key path>: <problem>`), joined with "; ". Secret values never appear in it.
 */
export function compileConfig(sources: ConfigSources): Readonly<Config> {
  const problems: string[] = [];
  const settings: Setting[] = [];
  for (const file of sources.files) {
    const source = readYamlSource(file, sources.cwd);
    settings.push(...source.settings);
    problems.push(...source.problems);
  }
  settings.push(...readEnvSettings(sources.env), ...readFlagSettings(sources.flags));

  const values = defaultValues(sources.env);
  for (const setting of settings) {
    const result = coerceSetting(setting, sources.env);
    if (result.ok) layerValue(values, setting.path, result.value, keySpec(setting.path)?.kind.merges === true);
    else problems.push(result.problem);
  }
  if (problems.length > 0) throw new DaemonError('config_invalid', joinProblems(problems));

  values.set('store.path', resolve(sources.cwd, String(values.get('store.path'))));
  // The tree has exactly the table's paths, and the KEYS type pins each path's value type to Config's.
  return deepFreeze(buildTree(values) as unknown as Config);
}

function defaultValues(env: Record<string, string | undefined>): Map<string, unknown> {
  const values = new Map<string, unknown>(KEY_PATHS.map((path) => [path, KEYS[path].default]));
  values.set('store.path', env['AGENTD_STATE_DIR'] || DEFAULT_STORE_PATH);
  return values;
}

/** Resolves a setting's secrets and coerces it by its key's kind; problems are worded here, once. */
function coerceSetting(setting: Setting, env: Record<string, string | undefined>): Coerced<unknown> {
  const at = `${setting.origin}: ${setting.path}`;
  const spec = keySpec(setting.path);
  const fromText = spec?.kind.fromText;
  if (!spec || (setting.text && !fromText))
    return { ok: false, problem: `${at}: cannot be set from ${setting.origin}` };
  const secrets = setting.secrets
    ? resolveSecrets(setting.value, env)
    : { value: setting.value, used: [], missing: [] as string[] };
  if (secrets.missing.length > 0) {
    const names = secrets.missing.map((name) => `'${name}'`).join(', ');
    const verb = secrets.missing.length === 1 ? 'secret' : 'secrets';
    return { ok: false, problem: `${at}: ${verb} ${names} not set in the environment` };
  }
  for (const used of secrets.used) registerSecret(used.value);
  const result = setting.text && fromText ? fromText(String(secrets.value)) : spec.kind.fromYaml(secrets.value);
  if (!result.ok) {
    const first = secrets.used[0];
    // A problem text may quote the value; when a secret went into it, name the secret instead.
    const problem = first ? `the value of secret '${first.name}' is not a valid ${spec.kind.type}` : result.problem;
    return { ok: false, problem: `${at}: ${problem}` };
  }
  if (spec.sensitive && typeof result.value === 'string') registerSecret(result.value);
  return result;
}

function joinProblems(problems: string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS).join('; ');
  const more = problems.length - MAX_PROBLEMS;
  return more > 0 ? `${shown}; (and ${more} more)` : shown;
}
