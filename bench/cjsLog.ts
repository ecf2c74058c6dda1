// Preloaded with `--import` beside test/fixtures/importLog.js by workerImports.bench.ts: at exit, appends the
// CommonJS modules the process required (the OpenTelemetry SDK is CommonJS, which the ESM resolve hook misses).
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const log = process.env.AGENTD_IMPORT_LOG;
  const urls = Object.keys(cache).map((path) => pathToFileURL(path).href);
  if (log && urls.length > 0) appendFileSync(log, `${urls.join('\n')}\n`);
});
