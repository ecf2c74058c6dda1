// Data flows one way (DESIGN.md): the obs modules are used by the supervisor and the worker and reach into neither.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// dist/test/unit/obs → the repository root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const obs = join(root, 'src', 'obs');

describe('src/obs imports', () => {
  it('no obs module imports from the supervisor or the worker', () => {
    const reaching = readdirSync(obs)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(join(obs, f), 'utf8').matchAll(/from '\.\.\/(supervisor|worker)\/[^']+'/g)].map(
          (m) => `${f}: ${m[0]}`,
        ),
      );
    // The premise: activityBoard.ts importing LiveTurn or TaskHooks from ../supervisor/ (as it did) is listed here.
    assert.deepEqual(reaching, []);
  });
});
