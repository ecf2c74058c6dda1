// The package as a user gets it: `npm pack`, the tarball unpacked into a fresh TypeScript project (tsc --strict,
// moduleResolution nodenext) whose other dependencies are the repo's own node_modules (symlinked: nothing from the
// network), every example in examples/ type-checked against the packed declarations and run against the
// scripted model.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../../integration/wait.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** A fresh project with the packed agentd installed; returns its directory. */
function projectWithTarball(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-pack-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: repo, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, 'agentd'), { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, String(tarball)), '-C', join(modules, 'agentd'), '--strip-components=1']);
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name !== 'agentd' && name !== '.bin') symlinkSync(join(repo, 'node_modules', name), join(modules, name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'uses-agentd', private: true, type: 'module' }));
  const compilerOptions = {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  cpSync(join(repo, 'examples'), join(dir, 'src'), { recursive: true });
  return dir;
}

/** The package name of each bare import (static, side-effect or dynamic with a literal) in the .js files under `dir`. */
function bareImports(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  // Static imports and re-exports (tsc keeps each at a line's start), side-effect imports, literal dynamic imports.
  const specs =
    /^(?:import|export)\s[^;]*?\bfrom\s*['"]([^'"\s]+)['"]|^import\s*['"]([^'"\s]+)['"]|\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/gm;
  const packageName = /^(?:@[\w.-]+\/)?[\w.-]+/;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const [, staticSpec, sideEffect, dynamic] of readFileSync(file, 'utf8').matchAll(specs)) {
      const spec = staticSpec ?? sideEffect ?? dynamic ?? '';
      if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const name = packageName.exec(spec)?.[0];
      if (name && !found.has(name)) found.set(name, file);
    }
  }
  return found;
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNode(cwd: string, script: string, env: Record<string, string>, onLine?: (line: string) => void) {
  const child = spawn(process.execPath, [join('dist', script)], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => {
    out.stdout += d.toString();
    if (onLine && out.stdout.includes('\n')) onLine(out.stdout.split('\n')[0] ?? '');
  });
  child.stderr.on('data', (d: Buffer) => {
    out.stderr += d.toString();
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code) => resolve({ code, ...out })));
  return { child, exited };
}

describe('the packed package', () => {
  let model: ScriptedModel;
  let project: string;
  before(async () => {
    project = projectWithTarball();
    model = await startScriptedModel({
      turns: [{ content: 'hello there' }],
      match: [
        {
          when_contains: 'ORD-1001',
          times: 1,
          tool_calls: [{ name: 'lookup_order', arguments: { order: 'ORD-1001' } }],
        },
        { when_contains: 'shipped', times: 1, content: 'Your order has shipped; it arrives in 2 days.' },
        { when_contains: 'get-sum tool', times: 1, tool_calls: [{ name: 'get-sum', arguments: { a: 4, b: 5 } }] },
        { when_contains: 'The sum of 4 and 5 is 9', times: 1, content: '4 + 5 = 9' },
      ],
    });
  });
  after(async () => {
    await model?.close();
    // The symlinks go, not what they point at.
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('type-checks every example under tsc --strict and nodenext against the packed declarations', () => {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, stdio: 'pipe' });
  });

  it('declares every package its code imports as a dependency or a peer dependency', () => {
    const installed = join(project, 'node_modules', 'agentd');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    const declared = new Set([
      ...Object.keys((pkg.dependencies ?? {}) as object),
      ...Object.keys((pkg.peerDependencies ?? {}) as object),
    ]);
    const imported = bareImports(join(installed, 'dist', 'src'));
    // The premise: the scan sees the packages the runtime imports, so a missing one would be listed below.
    assert.ok(imported.has('better-sqlite3') && imported.has('zod'), [...imported.keys()].join(', '));
    const missing = [...imported].filter(([name]) => !declared.has(name)).map(([name, file]) => `${name} (${file})`);
    assert.deepEqual(missing, [], 'imported but not in dependencies or peerDependencies');
  });

  it('runs the support agent: its code tool answers through the worker', async () => {
    const env = { AGENT_ENDPOINT: model.url };
    const { exited } = runNode(project, 'supportAgent.js', env);
    const done = await within(exited, 60_000, 'the support agent');
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, 'Your order has shipped; it arrives in 2 days.\n');
    assert.match(done.stderr, /calling lookup_order/);
  });

  it('runs the MCP agent: the reference server sums', async () => {
    const { exited } = runNode(project, 'mcpAgent.js', {
      AGENT_ENDPOINT: model.url,
      MCP_SERVER: `${process.execPath} ${everything} stdio`,
    });
    const done = await within(exited, 60_000, 'the MCP agent');
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, '4 + 5 = 9\n');
  });

  it('runs the serving agent: A2A agent card and /metrics are served, SIGTERM stops it cleanly', async () => {
    let announce: (line: string) => void = () => {};
    const first = new Promise<string>((resolve) => {
      announce = resolve;
    });
    const env = { AGENT_ENDPOINT: model.url, A2A_LISTEN: 'http://127.0.0.1:0', METRICS_ADDR: '127.0.0.1:0' };
    const { child, exited } = runNode(project, 'servingAgent.js', env, (line) => announce(line));
    try {
      const ready = JSON.parse(await within(first, 60_000, 'the serving agent')) as Record<string, string>;
      assert.equal(ready.warmUp, 'hello there');
      const card = (await (await fetch(`${ready.a2aUrl}/.well-known/agent-card.json`)).json()) as { name: string };
      assert.equal(card.name, 'served');
      const metrics = await (await fetch(`http://${ready.metricsAddress}/metrics`)).text();
      assert.match(metrics, /^agentd_turns_total\{status="completed"\} 1$/m);
    } finally {
      child.kill('SIGTERM');
    }
    const done = await within(exited, 30_000, 'the serving agent stops');
    assert.equal(done.code, 0, done.stderr);
  });
});
