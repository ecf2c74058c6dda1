import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { leanHeapArgs, leanOwnCodeFlag, leanOwnHeapFlag } from '../../../src/runtime/leanHeap.js';

describe('leanHeapArgs', () => {
  it('caps the young generation of a process agentd spawns', () => {
    assert.deepEqual(leanHeapArgs({}), ['--max-semi-space-size=1']);
  });

  it("leaves the young generation to the operator's NODE_OPTIONS when they size it", () => {
    assert.deepEqual(leanHeapArgs({ NODE_OPTIONS: '--max-semi-space-size=8' }), []);
    assert.deepEqual(leanHeapArgs({ NODE_OPTIONS: '--semi-space-size=4 --enable-source-maps' }), []);
    assert.deepEqual(leanHeapArgs({ NODE_OPTIONS: '--enable-source-maps' }), ['--max-semi-space-size=1']);
  });

  it('is a flag this node accepts and applies', () => {
    // Survivors of many scavenges make V8 grow the new space up to its cap.
    const code =
      'const keep=[];for(let i=0;i<2e6;i++){const o={i};if(i%50===0)keep.push(o)}' +
      "console.log(require('v8').getHeapSpaceStatistics().find(x=>x.space_name==='new_space').space_size)";
    const run = spawnSync(process.execPath, [...leanHeapArgs({}), '-e', code], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // Premise: without the flag the same work grows the new space past it.
    const plain = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', env: {} });
    assert.ok(Number(run.stdout) < Number(plain.stdout), `${run.stdout} < ${plain.stdout}`);
  });
});

describe('leanOwnHeapFlag', () => {
  it("caps the bin's own young generation unless NODE_OPTIONS or node's flags size it", () => {
    assert.equal(leanOwnHeapFlag({}, []), '--semi-space-growth-factor=1');
    assert.equal(
      leanOwnHeapFlag({ NODE_OPTIONS: '--enable-source-maps' }, ['--inspect']),
      '--semi-space-growth-factor=1',
    );
    assert.equal(leanOwnHeapFlag({ NODE_OPTIONS: '--max-semi-space-size=8' }, []), null);
    assert.equal(leanOwnHeapFlag({}, ['--max-semi-space-size=1']), null);
    assert.equal(leanOwnHeapFlag({ NODE_OPTIONS: '--semi-space-growth-factor=4' }, []), null);
  });

  it('keeps the young generation at its first size when set at run time', () => {
    const flag = leanOwnHeapFlag({}, []) as string;
    const work =
      'const keep=[];for(let i=0;i<2e6;i++){const o={i};if(i%50===0)keep.push(o)}' +
      "console.log(require('v8').getHeapSpaceStatistics().find(x=>x.space_name==='new_space').space_size)";
    const at = (pre: string) => spawnSync(process.execPath, ['-e', pre + work], { encoding: 'utf8', env: {} });
    const lean = at(`require('v8').setFlagsFromString(${JSON.stringify(flag)});`);
    assert.equal(lean.status, 0, lean.stderr);
    const plain = at('');
    // Premise: without the flag the same work grows the new space past it.
    assert.ok(Number(lean.stdout) < Number(plain.stdout), `${lean.stdout} < ${plain.stdout}`);
    assert.ok(Number(lean.stdout) <= 2 * 1_048_576 * 2, `${lean.stdout}: at most two 1 MB semi-spaces (and slack)`);
  });
});

describe('leanOwnCodeFlag', () => {
  it("turns the bin's optimizing compiler off unless node's flags or NODE_OPTIONS name it", () => {
    assert.equal(leanOwnCodeFlag({}, []), '--no-opt');
    assert.equal(leanOwnCodeFlag({}, ['--max-semi-space-size=1']), '--no-opt');
    assert.equal(leanOwnCodeFlag({}, ['--opt']), null);
    assert.equal(leanOwnCodeFlag({}, ['--turbofan']), null);
    assert.equal(leanOwnCodeFlag({ NODE_OPTIONS: '--no-opt' }, []), null);
    assert.equal(leanOwnCodeFlag({ NODE_OPTIONS: '--enable-source-maps' }, ['--optimize-for-size']), '--no-opt');
  });

  it('keeps a hot function from being optimized when set at run time', () => {
    const flag = leanOwnCodeFlag({}, []) as string;
    // V8's optimization status: bit 16 is "optimized" (TurboFan).
    const work =
      'function f(x){return x*2+1};let s=0;for(let i=0;i<3e6;i++)s+=f(i);console.log(%GetOptimizationStatus(f))';
    const at = (pre: string) =>
      spawnSync(process.execPath, ['--allow-natives-syntax', '-e', pre + work], { encoding: 'utf8', env: {} });
    const lean = at(`require('v8').setFlagsFromString(${JSON.stringify(flag)});`);
    assert.equal(lean.status, 0, lean.stderr);
    const plain = at('');
    assert.equal(Number(plain.stdout) & 16, 16, `premise: the loop optimizes f without the flag (${plain.stdout})`);
    assert.equal(Number(lean.stdout) & 16, 0, `status ${lean.stdout}`);
  });
});
