// Test helpers for config: temporary directories with real YAML files, and compile-or-capture-the-error.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../../src/config/compile.js';
import type { Config, ConfigFlags } from '../../../src/config/types.js';
import { DaemonError } from '../../../src/errors.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';

export interface Inputs {
  files?: string[];
  env?: Record<string, string | undefined>;
  flags?: ConfigFlags;
}

/** A fresh empty directory under the OS temp dir. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'agentd-config-'));
}

/** Writes `text` to `dir/name` and returns the name (files are compiled with cwd = dir). */
export function writeConfig(dir: string, name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

/** compileConfig with cwd = dir and empty defaults for the rest. */
export function compileIn(dir: string, inputs: Inputs = {}): Readonly<Config> {
  return compileConfig({
    ...{ files: inputs.files ?? [], env: inputs.env ?? {}, flags: inputs.flags ?? {}, cwd: dir },
    workflows: loadWorkflow,
  });
}

/** The message of the config_invalid error compileConfig throws (fails the test when it does not throw). */
export function compileError(dir: string, inputs: Inputs = {}): string {
  try {
    compileIn(dir, inputs);
  } catch (err) {
    assert.ok(err instanceof DaemonError, `expected a DaemonError, got ${String(err)}`);
    assert.equal(err.code, 'config_invalid');
    assert.ok(!err.message.includes('\n'), `message must be one line: ${err.message}`);
    return err.message;
  }
  assert.fail('expected compileConfig to throw');
}
