// compileConfig: defaults < YAML files (in order) < AGENTD_* env < flags, secrets resolved, every value validated,
// one frozen Config out. It reads the config files (and, for a bedrock model, the AWS credentials file) and nothing
// else: no directory or file is created here.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { WorkflowDef } from '../domain/workflow.js';
import { DaemonError } from '../errors.js';
import { registerSecret } from '../obs/log.js';
import { isCredentialHeader } from '../obs/redactor.js';
import { hasRecurringStart, type RunUntil, shapeOf } from '../triggers/lifeShape.js';
import { checkA2a } from './a2aKeys.js';
import { settleAwsAuth } from './awsAuth.js';
import { readEnvSettings, readFlagSettings } from './envSource.js';
import type { Coerced, SubPath, ValueKind } from './kinds.js';
import { buildTree, deepFreeze, layerValue } from './merge.js';
import { checkWorkflowReach } from './peerKeys.js';
import { checkPromptKeys } from './promptKeys.js';
import { checkIntelligence, type OriginOf } from './roleRules.js';
import { DEFAULT_STORE_PATH, KEY_PATHS, KEYS, keySpec } from './schema.js';
import { checkSearchSteps } from './searchKeys.js';
import { checkSecretLengths } from './secretLengths.js';
import { resolveSecrets } from './secrets.js';
import type { Setting } from './setting.js';
import { checkStore } from './storeKeys.js';
import { checkTemplateServers } from './subagentKeys.js';
import type { Config, ConfigSources, ProviderConfig } from './types.js';
import { checkFanOut, loadWorkflowFiles, type WorkflowEntry } from './workflowKeys.js';
import { settleWorkflowSecrets } from './workflowSecrets.js';
import { readYamlSource, readYamlText } from './yamlSource.js';

export { type ConfigKeyDoc, describeConfigKeys } from './describe.js';
export { formatDuration, parseDuration } from './duration.js';

const MAX_PROBLEMS = 10;

/**
 * Compiles the configuration once. Throws a DaemonError `config_invalid` whose message is one line: every problem
 * found (`<origin>: <key path>: <problem>`), joined with "; ". Secret values never appear in it.
 */
export function compileConfig(sources: ConfigSources): Readonly<Config> {
  const problems: string[] = [];
  const settings: Layered[] = [];
  const yamlSources = sources.files.map((file) => readYamlSource(file, sources.cwd));
  // An embedder's inline options are one more layer above the files, below the environment and the flags.
  if (sources.inline) yamlSources.push(readYamlText(sources.inline.text, sources.inline.name));
  yamlSources.forEach((source, layer) => {
    settings.push(...source.settings.map((setting) => ({ setting, layer })));
    problems.push(...source.problems);
  });
  const envLayer = yamlSources.length;
  settings.push(...readEnvSettings(sources.env).map((setting) => ({ setting, layer: envLayer })));
  settings.push(...readFlagSettings(sources.flags).map((setting) => ({ setting, layer: envLayer + 1 })));

  const values = defaultValues(sources.env);
  const accepted: Accepted[] = [];
  for (const { setting, layer } of settings) {
    if (sources.only && !sources.only(setting.path)) continue;
    const result = coerceSetting(setting, sources.env);
    if (!result.ok) problems.push(result.problem);
    else {
      layerValue(values, setting.path, result.value, keySpec(setting.path)?.kind.merges === true);
      accepted.push({ setting, layer, value: result.value });
    }
  }
  if (problems.length > 0) throw new DaemonError('config_invalid', joinProblems(problems));

  values.set('store.path', resolve(sources.cwd, String(values.get('store.path'))));
  const tls = values.get('a2a.tls') as Config['a2a']['tls'];
  if (tls) values.set('a2a.tls', { cert: resolve(sources.cwd, tls.cert), key: resolve(sources.cwd, tls.key) });
  const files = values.get('agent.instruction_files') as readonly string[];
  values.set(
    'agent.instruction_files',
    files.map((f) => resolve(sources.cwd, f)),
  );
  settleIntelligence(values, accepted);
  const originOf = originFinder(accepted);
  const loading = { cwd: sources.cwd, loader: sources.workflows, originOf };
  const workflows = loadWorkflowFiles(values.get('workflows') as WorkflowEntry[], loading);
  values.set('workflows', workflows.defs);
  const storeDefaulted = sources.oneShot === true && settleJobStore(values, accepted, sources.env);
  // The tree has exactly the table's paths, and the KEYS type pins each path's value type to Config's.
  const config = buildTree(values) as unknown as Config;
  const aws = settleAwsAuth(config, originOf, awsSources(sources.env));
  for (const secret of aws.secrets) registerSecret(secret);
  const crossProblems = [
    ...workflows.problems,
    ...checkFanOut(config.workflows, config.limits.workflow.fan_out),
    ...settleWorkflowSecrets(config.workflows, sources.env),
    ...aws.problems,
    ...checkIntelligence(config, originOf),
    ...checkA2a(config, originOf),
    ...checkPromptKeys(config, originOf),
    ...checkTemplateServers(config, originOf),
    ...checkWorkflowReach(config),
    ...checkSearchSteps(config.workflows, config.search.provider),
    ...checkSecretLengths(config, originOf),
    ...checkStore(config, originOf),
  ];
  if (crossProblems.length > 0) throw new DaemonError('config_invalid', joinProblems(crossProblems));
  if (storeDefaulted) defaultedConfigs.add(config);
  return deepFreeze(config);
}

/** Where AWS credentials may come from: the environment and the shared credentials file (read only if needed). */
function awsSources(env: Record<string, string | undefined>) {
  const readFile = (path: string): string | null => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
  return { env, home: env['HOME'] || homedir(), readFile };
}

/** A setting and its layer: the file's index, then the environment, then the flags. */
interface Layered {
  setting: Setting;
  layer: number;
}

/** A setting that coerced, with its value. */
interface Accepted extends Layered {
  value: unknown;
}

function lastSetting(accepted: readonly Accepted[], path: string): Accepted | undefined {
  return accepted.findLast((entry) => entry.setting.path === path);
}

/**
 * A one-shot `agentd` job (no `a2a.listen`) whose user named no store keeps nothing: a second run of the same prompt asks the
 * model again (reference §2.1: one-shot ⇒ no store). Naming one — `store.kind`, `store.path` (file, env or
 * `--state-dir`) or `$AGENTD_STATE_DIR` — makes the job durable; a daemon keeps the file default.
 */
function settleJobStore(
  values: Map<string, unknown>,
  accepted: readonly Accepted[],
  env: Record<string, string | undefined>,
): boolean {
  // Only where the store is names one: `store.conversation_cache` or `store.min_free` tune whichever store there is.
  const named = Boolean(env['AGENTD_STATE_DIR']) || accepted.some((a) => STORE_NAMING.has(a.setting.path));
  // One predicate for the store and the process shape (producers reference §3.1): a daemon keeps its state.
  const recurring = hasRecurringStart(values.get('workflows') as WorkflowDef[]);
  const listening = values.get('a2a.listen') !== null;
  if (named || shapeOf(values.get('lifecycle.run_until') as RunUntil, listening, recurring) === 'daemon') return false;
  values.set('store.kind', 'memory');
  return true;
}

const STORE_NAMING = new Set(['store.kind', 'store.path']);
/** The configs whose one-shot job was given no store because none was named. */
const defaultedConfigs = new WeakSet<object>();

/** True when `config` is a one-shot job's whose store was left out (not a `store.kind: memory` the user wrote). */
export function jobStoreDefaulted(config: Readonly<Config>): boolean {
  return defaultedConfigs.has(config);
}

/**
 * `intelligence.model` and `roles.turn` name the same thing: one set in a later layer than the other wins (so
 * `--model` overrides a file's `roles.turn`). A provider without structured_output or prompt_cache_key takes the
 * top-level one.
 */
function settleIntelligence(values: Map<string, unknown>, accepted: readonly Accepted[]): void {
  const model = lastSetting(accepted, 'intelligence.model');
  const turn = lastSetting(accepted, 'intelligence.roles.turn');
  if (model && turn && model.layer > turn.layer) values.set('intelligence.roles.turn', null);
  const inherited = values.get('intelligence.structured_output');
  const cacheKey = values.get('intelligence.prompt_cache_key');
  const providers = values.get('intelligence.providers') as Record<string, Partial<ProviderConfig>>;
  const settled = Object.entries(providers).map(([name, provider]) => [
    name,
    {
      ...provider,
      structured_output: provider.structured_output ?? inherited,
      prompt_cache_key: provider.prompt_cache_key ?? cacheKey,
    },
  ]);
  values.set('intelligence.providers', Object.fromEntries(settled));
}

/** The origin of the last accepted setting of `path` (holding `at[0]`, for a map), placed at `at`. */
function originFinder(accepted: readonly Accepted[]): OriginOf {
  return (path, at = []) => {
    const head = at[0];
    const found = accepted.findLast(
      ({ setting, value }) =>
        setting.path === path &&
        (head === undefined || ((isRecord(value) || Array.isArray(value)) && Object.hasOwn(value, String(head)))),
    );
    if (!found) return undefined;
    return at.length > 0 && found.setting.locate ? found.setting.locate(at) : found.setting.origin;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function defaultValues(env: Record<string, string | undefined>): Map<string, unknown> {
  const values = new Map<string, unknown>(KEY_PATHS.map((path) => [path, KEYS[path].default]));
  values.set('store.path', env['AGENTD_STATE_DIR'] || DEFAULT_STORE_PATH);
  // OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none switch the standard variables off, as for the OTel SDKs.
  const off = env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true' || tracesExporterOff(env);
  values.set('observability.otlp_endpoint', off ? null : tracesEndpointOf(env));
  return values;
}

/**
 * The traces URL the standard OpenTelemetry variables name (reference §3.4; OTLP exporter spec): the per-signal
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT as a base with `v1/traces` added.
 */
function tracesEndpointOf(env: Record<string, string | undefined>): string | null {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (traces) return traces;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}

/** OTEL_TRACES_EXPORTER lists exporters; `none` alone means no traces. */
function tracesExporterOff(env: Record<string, string | undefined>): boolean {
  const listed = (env['OTEL_TRACES_EXPORTER'] ?? '').split(',').map((s) => s.trim().toLowerCase());
  return listed.length === 1 && listed[0] === 'none';
}

/** Resolves a setting's secrets and coerces it by its key's kind; problems are worded here, once. */
function coerceSetting(setting: Setting, env: Record<string, string | undefined>): Coerced<unknown> {
  const at = `${setting.origin}: ${setting.path}`;
  const spec = keySpec(setting.path);
  const parse = spec && parserFor(spec.kind, setting.source);
  if (!spec || !parse) return { ok: false, problem: `${at}: cannot be set from ${setting.origin}` };
  if (spec.kind.resolveSecretsIn) return coerceStructured(setting, parse, spec.kind.resolveSecretsIn, env);
  const secrets = setting.secrets
    ? resolveSecrets(setting.value, env)
    : { value: setting.value, used: [], missing: [] as string[] };
  if (secrets.missing.length > 0) {
    const names = secrets.missing.map((name) => `'${name}'`).join(', ');
    const verb = secrets.missing.length === 1 ? 'secret' : 'secrets';
    return { ok: false, problem: `${at}: ${verb} ${names} not set in the environment` };
  }
  for (const used of secrets.used) registerSecret(used.value);
  const result = parse(secrets.value);
  if (!result.ok) {
    const first = secrets.used[0];
    // A problem text may quote the value; when a secret went into it, name the secret instead.
    if (first)
      return { ok: false, problem: `${at}: the value of secret '${first.name}' is not a valid ${spec.kind.type}` };
    return { ok: false, problem: placeProblem(setting, result.problem, result.at) };
  }
  if (spec.sensitive) registerSensitive(result.value);
  return result;
}

type Parse = (value: unknown) => Coerced<unknown>;

function parserFor(kind: ValueKind<unknown>, source: Setting['source']): Parse | undefined {
  if (source === 'file') return kind.fromYaml;
  const fromText = source === 'flag' ? (kind.fromFlag ?? kind.fromText) : kind.fromText;
  return fromText && ((value) => fromText(String(value)));
}

/** Validates the raw value first, then resolves secrets only where the kind says they may be. */
function coerceStructured(
  setting: Setting,
  parse: Parse,
  resolveIn: NonNullable<ValueKind<unknown>['resolveSecretsIn']>,
  env: Record<string, string | undefined>,
): Coerced<unknown> {
  const result = parse(setting.value);
  if (!result.ok) return { ok: false, problem: placeProblem(setting, result.problem, result.at) };
  const missing: string[] = [];
  const value = resolveIn(result.value, (text, at, sensitive) => {
    const secrets = setting.secrets ? resolveSecrets(text, env) : { value: text, used: [], missing: [] };
    for (const name of secrets.missing)
      missing.push(placeProblem(setting, `secret '${name}' not set in the environment`, at));
    for (const used of secrets.used) registerSecret(used.value);
    if (sensitive) registerSecret(String(secrets.value));
    return String(secrets.value);
  });
  return missing[0] === undefined ? { ok: true, value } : { ok: false, problem: missing[0] };
}

/** `a.yaml:14: security.policies[1].action: <problem>`: the origin and key path of the place inside the value. */
function placeProblem(setting: Setting, problem: string, at: SubPath = []): string {
  const origin = at.length > 0 && setting.locate ? setting.locate(at) : setting.origin;
  const inner = at.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
  return `${origin}: ${setting.path}${inner}: ${problem}`;
}

function joinProblems(problems: string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS).join('; ');
  const more = problems.length - MAX_PROBLEMS;
  return more > 0 ? `${shown}; (and ${more} more)` : shown;
}

/** Registers a sensitive value (a string, or a header map's credential-named values) for redaction. */
function registerSensitive(value: unknown): void {
  if (typeof value === 'string') registerSecret(value);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string' && isCredentialHeader(k)) registerSecret(v);
  }
}
