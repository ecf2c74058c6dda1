import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byteSizeKind, formatByteSize, parseByteSize } from '../../../src/config/byteSize.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('parseByteSize', () => {
  it('reads decimal and binary units, plain bytes and zero', () => {
    assert.equal(parseByteSize('256MB'), 256_000_000);
    assert.equal(parseByteSize('1GiB'), 1_073_741_824);
    assert.equal(parseByteSize('1.5k'), 1_500);
    assert.equal(parseByteSize('0'), 0);
    assert.equal(parseByteSize(' 512 mib '), 512 * 1_048_576);
  });

  it('refuses what is not a size', () => {
    for (const text of ['', 'lots', '-1MB', '5 parsecs', '1e3']) assert.equal(parseByteSize(text), null, text);
  });
});

describe('store.min_free', () => {
  it('defaults to 256 MB and takes a size from YAML or the environment', () => {
    const dir = tempDir();
    assert.equal(compileIn(dir).store.min_free, 256_000_000);
    const file = writeConfig(dir, 'a.yaml', 'store:\n  min_free: 1GiB\n');
    assert.equal(compileIn(dir, { files: [file] }).store.min_free, 1_073_741_824);
    assert.equal(compileIn(dir, { env: { AGENTD_STORE_MIN_FREE: '0' } }).store.min_free, 0);
    assert.deepEqual(byteSizeKind().fromYaml(1024), { ok: true, value: 1024 });
  });

  it('names the key and the line of a bad size', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'store:\n  min_free: plenty\n');
    assert.match(compileError(dir, { files: [file] }), /a\.yaml:2: store\.min_free: expected a size such as 256MB/);
  });
});

describe('formatByteSize', () => {
  it('writes the unit that gives the smallest number, and reads back to the same bytes', () => {
    const cases: Array<[number, string]> = [
      [268_435_456, '256MiB'],
      [256_000_000, '256MB'],
      [1_024, '1KiB'],
      [1_536, '1536'],
      [0, '0'],
    ];
    for (const [bytes, text] of cases) {
      assert.equal(formatByteSize(bytes), text);
      assert.equal(parseByteSize(text), bytes);
    }
  });
});
