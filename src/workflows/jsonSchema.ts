// JSON Schema checks of user data (inputs, outputs, `validate`, `output_schema`): ajv, compiled once per schema.
import type { Ajv, ValidateFunction } from 'ajv';
import { newAjv } from '../tools/newAjv.js';
import { explain } from '../tools/validation.js';

let shared: Ajv | null = null;
/** Created at the first schema (ajv loads then). */
const ajv = (): Ajv => (shared ??= newAjv({ allowUnionTypes: true, strict: false }));
const compiled = new Map<string, ValidateFunction>();

/** Null when `value` matches `schema`, else one line explaining the first error. */
export function schemaProblem(schema: unknown, value: unknown): string | null {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  try {
    if (validate === undefined) {
      validate = ajv().compile(schema as object);
      compiled.set(key, validate);
    }
  } catch (err) {
    return `invalid schema: ${err instanceof Error ? err.message : String(err)}`;
  }
  return validate(value) ? null : explain(validate.errors ?? []);
}

/** Null when `schema` compiles, else why not. */
export function schemaCompileProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object') return 'a schema must be an object';
  try {
    ajv().compile(schema as object);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
