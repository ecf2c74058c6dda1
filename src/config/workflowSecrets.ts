// `{{secret:NAME}}` in workflow start nodes (a webhook's auth), resolved by the config layer (house rule 4): the
// configured workflows' references are checked at compile (an unset one is a config error, exit 2) and every
// workflow, configured or created at run time, resolves through the environment the config was compiled from.
// The definitions keep the references verbatim: a run pins its definition in the store, a secret must not go there.
import type { WorkflowDef } from '../domain/workflow.js';
import { DaemonError } from '../errors.js';
import { registerSecret } from '../obs/log.js';
import { resolveSecrets } from './secrets.js';
import { everyStep } from './workflowSteps.js';

/** Resolves `{{secret:NAME}}` in a text; throws a config_invalid DaemonError naming an unset secret. */
export type SecretResolver = (text: string) => string;

/** The resolver of each compiled `workflows` list (the list object travels unchanged through reloads' views). */
const resolvers = new WeakMap<object, SecretResolver>();

/** Step fields whose strings may hold secrets: a webhook start's `auth`, an `http` step's `sign`. */
const SECRET_FIELDS = ['auth', 'sign'];

/** The secret names each compiled `workflows` list references: all a run-time definition may use. */
const configuredNames = new WeakMap<object, ReadonlySet<string>>();

/** The `{{secret:NAME}}` names `step`'s secret fields reference, with the field. */
function referenced(step: WorkflowDef['steps'][string]): Array<{ field: string; name: string }> {
  return SECRET_FIELDS.flatMap((field) =>
    resolveSecrets(step.fields[field], {}).missing.map((name) => ({ field, name })),
  );
}

/**
 * Checks every secret the configured start nodes reference and binds the resolver to `defs`; returns the problems
 * (`workflow "w" step "hook": auth: secret 'X' is not set`).
 */
export function settleWorkflowSecrets(
  defs: readonly WorkflowDef[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const problems: string[] = [];
  for (const def of defs)
    for (const step of everyStep(def.steps))
      for (const field of SECRET_FIELDS) {
        const { missing } = resolveSecrets(step.fields[field], env);
        for (const name of missing)
          problems.push(`workflow "${def.name}" step "${step.id}": ${field}: secret '${name}' is not set`);
      }
  configuredNames.set(
    defs,
    new Set(
      defs.flatMap((def) =>
        everyStep(def.steps)
          .flatMap(referenced)
          .map((r) => r.name),
      ),
    ),
  );
  const snapshot = Object.freeze({ ...env });
  resolvers.set(defs, (text) => {
    const resolved = resolveSecrets(text, snapshot);
    if (resolved.missing.length > 0)
      throw new DaemonError('config_invalid', `secret '${resolved.missing[0]}' is not set`);
    for (const used of resolved.used) registerSecret(used.value);
    return String(resolved.value);
  });
  return problems;
}

/** The resolver bound to a compiled `workflows` list; a list compileConfig never saw resolves no secret. */
export function workflowSecrets(defs: readonly WorkflowDef[]): SecretResolver {
  return (
    resolvers.get(defs) ??
    ((text) => {
      if (resolveSecrets(text, {}).missing.length > 0)
        throw new DaemonError('config_invalid', 'secrets are resolved only in a compiled config');
      return text;
    })
  );
}

/**
 * The refusals of a definition made at run time (`workflow.create`/`update`, by a model or a client): it may
 * reference only secrets a configured workflow already references, so it cannot HMAC a body with (or compare a
 * webhook caller against) any other variable of the daemon's environment.
 */
export function runtimeSecretProblems(defs: readonly WorkflowDef[], def: WorkflowDef): string[] {
  const allowed = configuredNames.get(defs) ?? new Set<string>();
  return everyStep(def.steps).flatMap((step) =>
    referenced(step)
      .filter((r) => !allowed.has(r.name))
      .map(
        (r) =>
          `workflow "${def.name}" step "${step.id}": ${r.field}: secret '${r.name}' is not referenced by a configured workflow (a workflow made at run time may use only those)`,
      ),
  );
}
