// Runs the whole suite with node's own test runner over the compiled tests (Node 20 has no glob for --test).
// Usage: node scripts/run-tests.mjs [unit|integration|e2e ...]  (default: all layers)
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { tapDigest } from './tapDigest.mjs';

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
// The browser tests need Debian's chromium; installing it here, once, before test files run in parallel, keeps two
// of them from racing for apt's lock on a fresh machine (seen: one install failed, its file's tests with it).
if (files.some((f) => f.includes(join('e2e', 'client')))) {
  const { ensureChromium } = await import('../dist/test/e2e/client/browser.js');
  try {
    ensureChromium();
  } catch (err) {
    console.error(`could not install chromium for the browser tests: ${err.message}`);
  }
}
// Every test is bounded (5 min), and the whole run too (45 min): a file whose tests ended but whose process a leaked
// handle keeps alive fails the suite in time instead of stopping it. Not --test-force-exit: on Node 20 it can end a file
// before all its tests ran, dropping them silently (seen: 52 to 60 of 61 tests in unit/store/sqliteStore.test).
const bounds = ['--test-timeout=300000'];
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...bounds, ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const digest = tapDigest();
createInterface({ input: child.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  digest.onLine(line);
});
const stopAll = setTimeout(() => {
  console.error('test run stopped after 45 minutes (a test file did not exit; see the last file above)');
  child.kill('SIGKILL');
}, 45 * 60_000);
child.on('close', (code, signal) => {
  clearTimeout(stopAll);
  digest.print((text) => process.stdout.write(text));
  process.exit(code ?? (signal ? 1 : 0));
});
