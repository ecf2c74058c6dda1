// The declared event names are the ones the runtime emits: a name nothing emits is dead and is removed, so the
// list users read in obs/events.ts stays true.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EVENT_NAMES } from '../../../src/obs/events.js';

const srcRoot = fileURLToPath(new URL('../../../src/', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|js)$/.test(name) && !/^events\.(ts|js)$/.test(name)) yield readFileSync(path, 'utf8');
  }
}

describe('EVENT_NAMES', () => {
  it('declares only names some source emits', () => {
    const text = [...sources(srcRoot)].join('\n');
    assert.ok(text.includes("'turn.spawn'"), 'premise: the sources were read');
    const silent = EVENT_NAMES.filter((name) => !text.includes(`'${name}'`));
    assert.deepEqual(silent, []);
  });

  it('declares each name once', () => {
    assert.equal(new Set(EVENT_NAMES).size, EVENT_NAMES.length);
  });
});
