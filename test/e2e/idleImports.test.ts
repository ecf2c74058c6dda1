// What an idle daemon loads (issue 14: idle memory): a daemon with an A2A listener, SQLite and its spare worker has
// not loaded pg, @bufbuild/cel, ajv or prom-client's index (its cluster aggregator, push gateway and default metrics
// with @opentelemetry/api); a config that uses CEL loads @bufbuild/cel at start, which shows the listing sees it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../integration/wait.js';
import { startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const preload = fileURLToPath(new URL('../doubles/moduleList.js', import.meta.url));
const LAZY = [/node_modules\/pg\//, /node_modules\/@bufbuild\/cel\//, /node_modules\/ajv\//, /prom-client\/index\.js/];

/** Every module the daemon (the first pid listed) loaded by now, ES and CommonJS. */
async function loadedBy(pid: number, dir: string): Promise<string[]> {
  process.kill(pid, 'SIGUSR2');
  const cjs = join(dir, `cjs-${pid}.txt`);
  await waitUntil(() => readdirSync(dir).includes(`cjs-${pid}.txt`), 10_000, 'the module list');
  return [...readFileSync(join(dir, `esm-${pid}.txt`), 'utf8').split('\n'), ...readFileSync(cjs, 'utf8').split('\n')];
}

async function daemonLoads(extra: string): Promise<string[]> {
  const list = mkdtempSync(join(tmpdir(), 'agentd-modules-'));
  const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: http://127.0.0.1:9/v1\n${extra}`;
  const env = { NODE_OPTIONS: `--import ${preload}`, AGENTD_TEST_MODULES: list };
  const daemon = await startDaemon(tempStateDir(), yaml, env);
  try {
    return await loadedBy(daemon.child.pid as number, list);
  } finally {
    await daemon.stop();
  }
}

describe('an idle daemon', { timeout: 60_000 }, () => {
  it('has not loaded pg, @bufbuild/cel, ajv or the whole of prom-client', async () => {
    const loaded = await daemonLoads('');
    assert.ok(
      loaded.some((m) => m.includes('better-sqlite3')),
      'premise: the listing holds CommonJS modules',
    );
    assert.ok(
      loaded.some((m) => m.includes('/dist/src/a2a/')),
      'premise: the listing holds ES modules',
    );
    assert.deepEqual(
      loaded.filter((m) => LAZY.some((re) => re.test(m))),
      [],
    );
  });

  it('loads @bufbuild/cel once its config compiles an expression', async () => {
    const workflow =
      'workflows:\n  - name: w\n    steps:\n      s: {kind: manual}\n' +
      '      a: {kind: assert, depends_on: [s], condition: "1 == 1"}\n      f: {kind: finish, depends_on: [a]}\n';
    const loaded = await daemonLoads(workflow);
    assert.ok(loaded.some((m) => /node_modules\/@bufbuild\/cel\//.test(m)));
  });
});
