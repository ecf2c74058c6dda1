// ajv (and ajv-formats), loaded when the first schema is compiled: a daemon that runs no internal tool and checks
// no workflow schema never pays for them. They are CommonJS, so the load stays synchronous for the validators.
import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';

const load = createRequire(import.meta.url);

/** A new ajv instance; with `formats`, the ajv-formats formats (date-time, uri, …) added. */
export function newAjv(options: Options, formats = false): Ajv {
  const { Ajv: AjvClass } = load('ajv') as typeof import('ajv');
  const ajv = new AjvClass(options);
  if (formats) {
    // ajv-formats is CommonJS with `exports.default`.
    const addFormats = load('ajv-formats') as { default: (ajv: Ajv) => Ajv };
    addFormats.default(ajv);
  }
  return ajv;
}
