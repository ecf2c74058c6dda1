// Bundles the web UI (src/client/web, issue 18 item 4) into dist/src/client/web/ — app.js (one minified IIFE with
// preact inside), app.css and index.html — where the daemon's /ui route reads them. Runs in `npm run build`; nothing
// generated is committed, and the installed package carries the bundle in dist/src.
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const from = 'src/client/web';
const to = 'dist/src/client/web';
mkdirSync(to, { recursive: true });
await build({
  entryPoints: [`${from}/main.tsx`],
  outfile: `${to}/app.js`,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(`${from}/app.css`, `${to}/app.css`);
copyFileSync(`${from}/index.html`, `${to}/index.html`);
