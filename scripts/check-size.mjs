// Fails the lint when a source file passes the hard size limit (STYLE.md rule 1): a rule nothing checks does
// not hold. Tests are exempt; the soft limit (400 lines) is reported as a warning.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const HARD = 700;
const SOFT = 400;
const roots = ['src', 'bench', 'demo', 'scripts'];

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|mjs|js)$/.test(name)) yield path;
  }
}

let failed = false;
for (const root of roots) {
  let files;
  try {
    files = [...walk(root)];
  } catch {
    continue;
  }
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    if (lines > HARD) {
      console.error(`${file}: ${lines} lines (hard limit ${HARD})`);
      failed = true;
    } else if (lines > SOFT) {
      console.warn(`${file}: ${lines} lines (soft limit ${SOFT})`);
    }
  }
}
process.exit(failed ? 1 : 0);
