// The model's view of an internal tool's input schema (issue 14 item 5): the contract's schema without the
// keywords only the validator needs. The supervisor still validates every call against the full contract
// (tools/validation.ts), and a refused call tells the model what was wrong. Pure data in, data out.

type Schema = Record<string, unknown>;

/**
 * Keywords left out of what the model reads: each is enforced by the validator with an error that names it, and
 * where a bound matters the description says it (a duration's form, "2-16 options").
 */
const VALIDATOR_ONLY = new Set([
  'additionalProperties',
  'minLength',
  'maxLength',
  'pattern',
  'uniqueItems',
  'minimum',
  'minItems',
  'maxItems',
]);

function leanValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(leanValue);
  if (value !== null && typeof value === 'object') return leanSchema(value as Schema, []);
  return value;
}

/**
 * `schema` without validator-only keywords and without an empty `required`, nested schemas alike; `omit` names
 * top-level properties the validator accepts but the model need not know (accepted and ignored).
 */
export function leanSchema(schema: Schema, omit: readonly string[] = []): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATOR_ONLY.has(key)) continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'properties' && value !== null && typeof value === 'object') {
      const props = Object.entries(value as Schema).filter(([name]) => !omit.includes(name));
      out[key] = Object.fromEntries(props.map(([name, sub]) => [name, leanValue(sub)]));
    } else out[key] = leanValue(value);
  }
  return out;
}
