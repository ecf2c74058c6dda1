// Fails the lint when a source file passes its size limit (STYLE.md rule 1): a rule nothing checks does not hold.
// src/ must stay within 400 lines; bench, demo and scripts within 700 (warned past 400). Tests are exempt.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOFT = 400;
/** The hard limit of each root. */
const roots = { src: 400, bench: 700, demo: 700, scripts: 700 };

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|tsx|mjs|js)$/.test(name)) yield path;
  }
}

let failed = false;
for (const [root, hard] of Object.entries(roots)) {
  let files;
  try {
    files = [...walk(root)];
  } catch {
    continue;
  }
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    if (lines > hard) {
      console.error(`${file}: ${lines} lines (hard limit ${hard})`);
      failed = true;
    } else if (lines > SOFT) {
      console.warn(`${file}: ${lines} lines (soft limit ${SOFT})`);
    }
  }
}
process.exit(failed ? 1 : 0);
