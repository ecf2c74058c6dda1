// A small JSON Schema validator for the subset the runtime's answer schemas use, so the turn worker need not
// import ajv. Pure. Unknown keywords are ignored (a schema using them is checked less strictly, never wrongly).

type Schema = Record<string, unknown>;

const MAX_ERRORS = 3;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Schema)[k], (b as Schema)[k]));
}

function pointer(path: string): string {
  return path === '' ? '(root)' : path;
}

type Errors = string[];

function fail(errors: Errors, path: string, message: string): void {
  if (errors.length < MAX_ERRORS) errors.push(`${pointer(path)} ${message}`);
}

function checkNode(value: unknown, schema: unknown, path: string, errors: Errors): void {
  if (schema === false) {
    fail(errors, path, 'is not allowed');
    return;
  }
  if (!isRecord(schema)) return;
  const before = errors.length;
  checkType(value, schema, path, errors);
  if (errors.length > before) return;
  checkEnum(value, schema, path, errors);
  checkNumber(value, schema, path, errors);
  checkString(value, schema, path, errors);
  if (Array.isArray(value)) checkArray(value, schema, path, errors);
  if (isRecord(value)) checkObject(value, schema, path, errors);
  checkAnyOf(value, schema, path, errors);
}

function checkType(value: unknown, schema: Schema, path: string, errors: Errors): void {
  const type = schema.type;
  if (type === undefined) return;
  const types = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
  if (types.length === 0 || types.some((t) => typeMatches(value, t))) return;
  fail(errors, path, `must be ${types.join(' or ')}`);
}

function checkEnum(value: unknown, schema: Schema, path: string, errors: Errors): void {
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) {
    fail(errors, path, `must be one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && !deepEqual(schema.const, value)) {
    fail(errors, path, `must be ${JSON.stringify(schema.const)}`);
  }
}

function checkNumber(value: unknown, schema: Schema, path: string, errors: Errors): void {
  if (typeof value !== 'number') return;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === 'number' && value < minimum) fail(errors, path, `must be >= ${minimum}`);
  if (typeof maximum === 'number' && value > maximum) fail(errors, path, `must be <= ${maximum}`);
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) {
    fail(errors, path, `must be > ${exclusiveMinimum}`);
  }
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) {
    fail(errors, path, `must be < ${exclusiveMaximum}`);
  }
}

function checkString(value: unknown, schema: Schema, path: string, errors: Errors): void {
  if (typeof value !== 'string') return;
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    fail(errors, path, `must have at least ${schema.minLength} characters`);
  }
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    fail(errors, path, `must have at most ${schema.maxLength} characters`);
  }
}

function checkArray(value: unknown[], schema: Schema, path: string, errors: Errors): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    fail(errors, path, `must have at least ${schema.minItems} items`);
  }
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    fail(errors, path, `must have at most ${schema.maxItems} items`);
  }
  const items = schema.items;
  if (!isRecord(items)) return;
  for (const [i, item] of value.entries()) checkNode(item, items, `${path}/${i}`, errors);
}

function checkObject(value: Record<string, unknown>, schema: Schema, path: string, errors: Errors): void {
  const props = isRecord(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === 'string' && !(key in value)) fail(errors, path, `must have required property '${key}'`);
    }
  }
  const extra = schema.additionalProperties;
  for (const [key, v] of Object.entries(value)) {
    const sub = `${path}/${key}`;
    if (Object.hasOwn(props, key)) checkNode(v, props[key], sub, errors);
    else if (extra === false) fail(errors, path, `must not have additional property '${key}'`);
    else if (isRecord(extra)) checkNode(v, extra, sub, errors);
  }
}

function checkAnyOf(value: unknown, schema: Schema, path: string, errors: Errors): void {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    const passes = options.filter((option) => checkSchema(value, option) === null).length;
    if (key === 'anyOf' && passes === 0) fail(errors, path, 'must match a schema in anyOf');
    if (key === 'oneOf' && passes !== 1) fail(errors, path, 'must match exactly one schema in oneOf');
  }
}

/**
 * Validates `value` against `schema`; returns null when it matches, else a short explanation of at most three
 * violations (`/intent must be one of ["chat","task"]`).
 */
export function checkSchema(value: unknown, schema: unknown): string | null {
  const errors: Errors = [];
  checkNode(value, schema, '', errors);
  return errors.length === 0 ? null : errors.join('; ');
}
