// @bufbuild/cel, loaded at the first expression compiled: a daemon without workflows or `await` conditions never
// pays for it (about 125 modules and 4 MB of heap). Its CommonJS build, so that compiling stays synchronous.
import { createRequire } from 'node:module';

export type CelLibrary = typeof import('@bufbuild/cel');

let loaded: { lib: CelLibrary; env: ReturnType<CelLibrary['celEnv']> } | undefined;

/** The library and the one environment every expression is planned in. */
export function celLibrary(): { lib: CelLibrary; env: ReturnType<CelLibrary['celEnv']> } {
  if (!loaded) {
    const lib = createRequire(import.meta.url)('@bufbuild/cel') as CelLibrary;
    loaded = { lib, env: lib.celEnv() };
  }
  return loaded;
}
