// Preloaded into a process under test (`--import`, via NODE_OPTIONS so its workers have it too): lists what the
// process loaded. ES modules are written by a loader hook as they load; CommonJS ones from the require cache and
// node's own modules (`process.moduleLoadList`: a builtin loaded by `require` too) when the process gets SIGUSR2.
// Files land in AGENTD_TEST_MODULES (a directory): `esm-<pid>.txt`, `cjs-<pid>.txt`, `builtin-<pid>.txt`.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join } from 'node:path';

const dir = process.env.AGENTD_TEST_MODULES;
if (dir) {
  register(new URL('./moduleListHooks.js', import.meta.url));
  process.on('SIGUSR2', () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    // `NativeModule tls`: node's own JS modules the process loaded, whoever asked for them.
    const loaded = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
    const builtins = loaded.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
    writeFileSync(join(dir, `builtin-${process.pid}.txt`), `${builtins.join('\n')}\n`);
    writeFileSync(join(dir, `cjs-${process.pid}.txt`), `${cjs.join('\n')}\n`);
  });
}
