// The `workflows:` key (issue 16 item 2): the config layer keeps the layering, files and error placement and parses
// documents only through the loader its caller passes in, so it imports nothing from src/workflows/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { DaemonError } from '../../../src/errors.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const BAD_STEP = `workflows:
  - name: w
    steps:
      s: {kind: once}
      f: {kind: finish, depends_on: s, prompt: hi}
`;

describe('workflows config key', () => {
  it('places an invalid inline document at its file and line, naming workflow, step and field', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', BAD_STEP);
    assert.match(
      compileError(dir, { files: [file] }),
      /^a\.yaml:2: workflows\[0\]: workflow "w" step "f": unknown field "prompt" for kind "finish"/,
    );
  });

  it('names the file of an invalid {file} entry, and refuses a name defined twice', () => {
    const dir = tempDir();
    writeConfig(dir, 'w.yaml', 'name: w\nsteps: {s: {kind: once}, f: {kind: finish, depends_on: s, nope: 1}}\n');
    const file = writeConfig(dir, 'a.yaml', 'workflows:\n  - {file: w.yaml}\n');
    assert.match(
      compileError(dir, { files: [file] }),
      /^workflow file w\.yaml: workflow "w" step "f": unknown field "nope"/,
    );
    writeConfig(dir, 'ok.yaml', 'name: w\nsteps: {s: {kind: once}, f: {kind: finish, depends_on: s}}\n');
    const twice = writeConfig(dir, 'b.yaml', 'workflows:\n  - {file: ok.yaml}\n  - {file: ok.yaml}\n');
    assert.match(compileError(dir, { files: [twice] }), /workflow "w" is defined twice/);
    assert.equal(
      compileIn(dir, { files: [writeConfig(dir, 'c.yaml', 'workflows:\n  - {file: ok.yaml}\n')] }).workflows[0]?.name,
      'w',
    );
  });

  it('refuses a configured batch asking for more than limits.workflow.fan_out at once, naming the step', () => {
    const dir = tempDir();
    const doc = `workflows:
  - name: w
    steps:
      s: {kind: once}
      b: {kind: batch, depends_on: s, over: [], parallel: 12, body: {n: {kind: noop}}}
      f: {kind: finish, depends_on: b}
`;
    const file = writeConfig(dir, 'a.yaml', doc);
    assert.match(
      compileError(dir, { files: [file] }),
      /workflow "w" step "b": parallel 12 exceeds limits\.workflow\.fan_out \(8\) — raise the limit or lower the step/,
    );
    const raised = writeConfig(dir, 'b.yaml', `${doc}limits:\n  workflow:\n    fan_out: 16\n`);
    assert.equal(compileIn(dir, { files: [raised] }).limits.workflow.fan_out, 16);
  });

  it('without a loader, a config that defines a workflow is a config error, and one that does not compiles', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', BAD_STEP);
    const bare = (files: string[]) => compileConfig({ files, env: {}, flags: {}, cwd: dir });
    assert.throws(
      () => bare([file]),
      (err: unknown) => err instanceof DaemonError && /workflows: this program loads no workflows/.test(err.message),
    );
    assert.deepEqual(bare([]).workflows, []);
  });

  it('src/config imports nothing from src/workflows (house rule: config reaches into no feature folder)', () => {
    const root = join(import.meta.dirname, '../../../../src/config');
    const offenders = readdirSync(root)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '\.\.\/workflows\//.test(readFileSync(join(root, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
