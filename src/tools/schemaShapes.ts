// The two object-schema shapes the internal contracts use: closed inputs and open outputs. Plain data.

type Schema = Record<string, unknown>;

/** An object schema that accepts only the listed properties. */
export const closed = (properties: Schema, required: string[] = []): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** An object schema that allows properties beyond the listed ones. */
export const open = (properties: Schema, required: string[]): Schema => ({ type: 'object', properties, required });
