// The `agentd/tools` entry a code-tools module imports (every worker loads that module): its module graph reaches
// no runtime module — only itself, the error type, defineTool, and zod. The main entry, the premise, loads hundreds.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { within } from '../wait.js';

const dist = fileURLToPath(new URL('../../../src/', import.meta.url));
const importLog = fileURLToPath(new URL('../../fixtures/importLog.js', import.meta.url));
const repo = fileURLToPath(new URL('../../../../', import.meta.url));

/** The package's own modules (paths under dist/src) that importing `entry` loads, in a fresh process. */
async function ownModulesOf(entry: string): Promise<string[]> {
  const log = join(mkdtempSync(join(tmpdir(), 'agentd-entry-')), 'imports.log');
  const child = spawn(
    process.execPath,
    ['--import', importLog, '--input-type=module', '-e', `await import(${JSON.stringify(join(dist, entry))})`],
    {
      env: { ...process.env, AGENTD_IMPORT_LOG: log },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await within(new Promise((r) => child.once('exit', r)), 20_000, `importing ${entry}`);
  assert.equal(code, 0, stderr);
  const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
  const own = urls.filter((u) => u.startsWith('file://') && fileURLToPath(u).startsWith(dist));
  return [...new Set(own.map((u) => fileURLToPath(u).slice(dist.length)))].sort();
}

describe('the agentd/tools entry', () => {
  it('is what package.json exports as agentd/tools', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
    };
    assert.equal(pkg.exports['./tools']?.default, './dist/src/toolsEntry.js');
    assert.equal(pkg.exports['./tools']?.types, './dist/src/toolsEntry.d.ts');
  });

  it('loads no runtime module: only itself, the error type and defineTool', async () => {
    assert.deepEqual(await ownModulesOf('toolsEntry.js'), ['errors.js', 'tools/defineTool.js', 'toolsEntry.js']);
    // The premise: the recorder sees the main entry's whole graph, so it would have seen a runtime module here.
    const main = await ownModulesOf('index.js');
    assert.ok(main.includes('supervisor/supervisor.js') && main.length > 100, `main entry: ${main.length} modules`);
  });
});
