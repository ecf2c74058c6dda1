// JSON Schema validation for internal tool contracts: ajv compiled once per contract, errors explained in one line.
// Loads and compiles lazily, so importing this module costs nothing until a tool actually runs (newAjv.ts).
import type { Ajv, AnySchema, ErrorObject, ValidateFunction } from 'ajv';
import { describeError } from '../errors.js';
import { DURATION_PATTERN, type InternalContract, internalContract } from './internalContracts.js';
import { newAjv } from './newAjv.js';

export type Check = { ok: true } | { ok: false; explain: string };

interface CompiledContract {
  input: ValidateFunction;
  output: ValidateFunction;
}

let ajv: Ajv | null = null;
const compiled = new Map<string, CompiledContract>();

function sharedAjv(): Ajv {
  ajv ??= newAjv({ allowUnionTypes: true, strict: true }, true);
  return ajv;
}

function compiledFor(contract: InternalContract): CompiledContract {
  let entry = compiled.get(contract.name);
  if (entry === undefined) {
    const instance = sharedAjv();
    entry = { input: instance.compile(contract.input_schema), output: instance.compile(contract.output_schema) };
    compiled.set(contract.name, entry);
  }
  return entry;
}

function run(validate: ValidateFunction, value: unknown): Check {
  if (validate(value)) return { ok: true };
  return { ok: false, explain: explain(validate.errors ?? []) };
}

/** Checks `args` against the input schema of internal tool `name` (which must exist). */
export function checkInput(name: string, args: unknown): Check {
  const contract = internalContract(name);
  if (contract === undefined) return { ok: false, explain: `no contract for "${name}"` };
  return run(compiledFor(contract).input, args);
}

/** Checks a ready result against the output schema of internal tool `name` (which must exist). */
export function checkOutput(name: string, result: unknown): Check {
  const contract = internalContract(name);
  if (contract === undefined) return { ok: false, explain: `no contract for "${name}"` };
  return run(compiledFor(contract).output, result);
}

/** Checks that `schema` is a JSON Schema (against the meta-schema; how strictly it is applied is its user's call). */
export function checkSchema(schema: unknown): Check {
  const instance = sharedAjv();
  try {
    if (instance.validateSchema(schema as AnySchema) === true) return { ok: true };
  } catch (err) {
    return { ok: false, explain: describeError(err) };
  }
  return { ok: false, explain: explain(instance.errors ?? []) };
}

/** One short line for the first error: `/key must be string`, `must have required property 'key'`. */
export function explain(errors: readonly ErrorObject[]): string {
  const first = errors[0];
  if (first === undefined) return 'invalid value';
  let message = first.message ?? `failed ${first.keyword}`;
  if (first.keyword === 'additionalProperties') {
    message = `must not have property '${String(first.params['additionalProperty'])}'`;
  } else if (first.keyword === 'pattern' && first.params['pattern'] === DURATION_PATTERN) {
    message = 'must be a duration like "250ms", "2s", "10m", or a number of seconds';
  } else if (first.keyword === 'enum') {
    const allowed = (first.params['allowedValues'] as unknown[] | undefined) ?? [];
    message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return first.instancePath === '' ? message : `${first.instancePath} ${message}`;
}
