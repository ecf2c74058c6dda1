// Preloaded into a process under test (`--import`, via NODE_OPTIONS so its workers have it too): lists what the
// process loaded. ES modules are written by a loader hook as they load; CommonJS ones from the require cache when
// the process gets SIGUSR2. Files land in AGENTD_TEST_MODULES (a directory): `esm-<pid>.txt`, `cjs-<pid>.txt`.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join } from 'node:path';

const dir = process.env.AGENTD_TEST_MODULES;
if (dir) {
  register(new URL('./moduleListHooks.js', import.meta.url));
  process.on('SIGUSR2', () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    writeFileSync(join(dir, `cjs-${process.pid}.txt`), `${cjs.join('\n')}\n`);
  });
}
