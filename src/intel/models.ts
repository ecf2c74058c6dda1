// Which model runs which job: a job's role resolved to the IntelligenceSpec a worker dials, and the context
// window compaction plans against (reference §5.2, §16.5). Pure: the compiled config in, plain data out.
import { declOf, type Job, jobRef } from '../config/roleRules.js';
import type { AuthConfig, Config, IntelligenceConfig, ModelDecl } from '../config/types.js';
import { guessWindow } from '../context/estimate.js';
import { DaemonError } from '../errors.js';
import type { AwsAuth, IntelligenceSpec } from '../protocol/frames.js';

export type { Job } from '../config/roleRules.js';

/**
 * The spec a job runs on: its role, else roles.turn, else `intelligence.model`. A reference that is not a declared
 * alias is a literal wire id: an implicit chat model on the top-level connection.
 */
export function specForJob(config: Readonly<Config>, job: Job): IntelligenceSpec {
  return specForRef(config, jobRef(config.intelligence, job));
}

/** The spec of a model reference: a declared alias, else a literal wire id on the top-level connection. */
export function specForRef(config: Readonly<Config>, ref: string): IntelligenceSpec {
  return declOf(config.intelligence, ref) === undefined ? literalSpec(config, ref) : specForModel(config, ref);
}

/** The spec of a declared model (a route's, say), its fallback chain resolved to nested specs. */
export function specForModel(config: Readonly<Config>, alias: string): IntelligenceSpec {
  return declaredSpec(config, alias, []);
}

/**
 * The context window compaction plans against: `context.model_window`, else the turn model's declared window,
 * else a guess from its wire name; with routes, the smallest among the turn model and every route model.
 */
export function modelWindow(config: Readonly<Config>): number {
  if (config.context.model_window !== null) return config.context.model_window;
  const intel = config.intelligence;
  const refs = [jobRef(intel, 'turn'), ...Object.keys(intel.routes)];
  return Math.min(...refs.map((ref) => windowOf(intel, ref)));
}

function windowOf(intel: Readonly<IntelligenceConfig>, ref: string): number {
  const decl = declOf(intel, ref);
  if (decl === undefined) return guessWindow(ref);
  return decl.window ?? guessWindow(decl.model);
}

function declaredSpec(config: Readonly<Config>, alias: string, chain: readonly string[]): IntelligenceSpec {
  const intel = config.intelligence;
  const decl = declOf(intel, alias);
  // compileConfig refuses both; reaching either here means a config that did not come from it.
  if (decl === undefined) throw new DaemonError('config_invalid', `intelligence.models: '${alias}' is not declared`);
  if (chain.includes(alias)) {
    throw new DaemonError('config_invalid', `intelligence.models: fallback cycle ${[...chain, alias].join(' → ')}`);
  }
  return {
    ...connectionOf(config, decl),
    model: decl.model,
    kind: decl.kind,
    ...(decl.family === null ? {} : { family: decl.family }),
    reasoning: decl.reasoning === null ? null : { ...decl.reasoning },
    fallback: decl.fallback === null ? null : declaredSpec(config, decl.fallback, [...chain, alias]),
  };
}

type Connection = Pick<IntelligenceSpec, 'endpoints' | 'token' | 'dialect' | 'headers' | 'timeout_ms' | 'aws'> & {
  structured_output: 'native' | 'prompt';
  prompt_cache_key: 'auto' | 'on' | 'off';
};

/** The provider's connection when the model names one, else the top-level intelligence connection. */
function connectionOf(config: Readonly<Config>, decl: ModelDecl | null): Connection {
  const intel = config.intelligence;
  const provider =
    decl?.provider != null && Object.hasOwn(intel.providers, decl.provider)
      ? intel.providers[decl.provider]
      : undefined;
  if (decl?.provider != null && provider === undefined) {
    throw new DaemonError('config_invalid', `intelligence.providers: '${decl.provider}' is not declared`);
  }
  const source = provider ?? intel;
  return {
    endpoints: [...source.endpoints],
    token: source.token,
    dialect: source.dialect,
    headers: Object.entries(source.headers),
    timeout_ms: intel.timeout,
    structured_output: source.structured_output,
    prompt_cache_key: source.prompt_cache_key,
    ...(source.dialect === 'bedrock' ? { aws: awsOf(source.auth) } : {}),
  };
}

/** The resolved AWS keys of a bedrock connection (compileConfig fills them in or refuses the config). */
function awsOf(auth: AuthConfig | null | undefined): AwsAuth {
  const { region, access_key_id, secret_access_key, session_token } = auth ?? {};
  if (!region || !access_key_id || !secret_access_key) {
    throw new DaemonError('config_invalid', 'intelligence.auth: a bedrock connection has no resolved AWS credentials');
  }
  return { region, access_key_id, secret_access_key, session_token: session_token ?? null };
}

function literalSpec(config: Readonly<Config>, model: string): IntelligenceSpec {
  return { ...connectionOf(config, null), model, kind: 'chat', reasoning: null, fallback: null };
}
