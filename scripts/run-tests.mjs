// Runs the whole suite with node's own test runner over the compiled tests (Node 20 has no glob for --test).
// Usage: node scripts/run-tests.mjs [unit|integration|e2e ...]  (default: all layers)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const layers = process.argv.slice(2);
const roots = (layers.length ? layers : ['unit', 'integration', 'e2e']).map((l) => join('dist', 'test', l));

function* walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (name.endsWith('.test.js')) yield path;
  }
}

const files = roots.flatMap((r) => [...walk(r)]).sort();
if (files.length === 0) {
  console.error('no test files found under dist/test: run `npm run build` first');
  process.exit(1);
}
// Every test is bounded (5 min), and a file whose tests ended exits even if a handle leaked: a hang fails the
// suite's time budget in CI instead of stopping it.
const bounds = ['--test-timeout=300000', '--test-force-exit'];
// One PostgreSQL server for the whole run (each file makes its own database on it), unless one is given.
const env = { ...process.env };
let postgres = null;
if (!env.AGENTD_TEST_POSTGRES_URL) {
  const { startTestServer } = await import('../dist/test/doubles/postgresServer.js');
  postgres = await startTestServer();
  env.AGENTD_TEST_POSTGRES_URL = postgres.url;
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...bounds, ...files], {
  stdio: 'inherit',
  env,
});
await postgres?.stop();
process.exit(result.status ?? 1);
