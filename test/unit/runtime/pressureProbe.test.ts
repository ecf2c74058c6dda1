import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  cgroupMemory as cgroupMemoryAt,
  ownCgroupDirs,
  systemProbe,
  workingSet,
} from '../../../src/runtime/pressureProbe.js';

/** A fake cgroup root with `files` (name → content). */
function cgroup(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentd-cgroup-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

/** The root's own cgroup, as a process outside any nested cgroup sees it (no /proc/self/cgroup line applies). */
const cgroupMemory = (root: string) => cgroupMemoryAt({ root, self: join(root, 'no-such-self') });
const atRoot = (root: string) => ({ root, self: join(root, 'no-such-self') });

describe('cgroupMemory', () => {
  it('reads v2: memory.high before memory.max; "max" is no limit', async () => {
    assert.deepEqual(await cgroupMemory(cgroup({ 'memory.current': '900\n', 'memory.high': '1000\n' })), {
      current: 900,
      limit: 1000,
    });
    const onlyMax = cgroup({ 'memory.current': '900', 'memory.high': 'max', 'memory.max': '2000' });
    assert.deepEqual(await cgroupMemory(onlyMax), { current: 900, limit: 2000 });
    assert.equal(
      await cgroupMemory(cgroup({ 'memory.current': '900', 'memory.high': 'max', 'memory.max': 'max' })),
      null,
    );
  });

  it("reads v1, where no limit is a huge number, and is null without a cgroup's files", async () => {
    const v1 = (limit: string) =>
      cgroup({ 'memory/memory.usage_in_bytes': '500', 'memory/memory.limit_in_bytes': limit });
    assert.deepEqual(await cgroupMemory(v1('1000')), { current: 500, limit: 1000 });
    assert.equal(await cgroupMemory(v1('9223372036854771712')), null);
    assert.equal(await cgroupMemory(cgroup({})), null);
  });
});

// Before the probe resolved /proc/self/cgroup it read the root's files (the host's, or nothing), and before it
// subtracted inactive_file a cgroup full of reclaimable page cache read as out of memory.
describe("the process's own cgroup", () => {
  it('resolves v2 `0::/path` and v1 `memory:` lines; the root when a line is missing', () => {
    assert.deepEqual(ownCgroupDirs('/cg', '0::/system.slice/agentd.service\n'), {
      v2: '/cg/system.slice/agentd.service',
      v1: '/cg/memory',
    });
    const v1 = '5:cpuacct,cpu:/x\n4:memory:/docker/abc\n0::/\n';
    assert.deepEqual(ownCgroupDirs('/cg', v1), { v2: '/cg', v1: '/cg/memory/docker/abc' });
    assert.deepEqual(ownCgroupDirs('/cg', ''), { v2: '/cg', v1: '/cg/memory' });
  });

  it("reads the own cgroup's files, not the root's, and counts usage less inactive_file", async () => {
    const root = cgroup({
      'memory.current': '10',
      'memory.max': '100',
      'app/memory.current': '1000',
      'app/memory.high': '1200',
      'app/memory.max': '5000',
      'app/memory.stat': 'active_file 50\ninactive_file 300\nanon 650\n',
      self: '0::/app\n',
    });
    assert.deepEqual(await cgroupMemoryAt({ root, self: join(root, 'self') }), { current: 700, limit: 1200 });
    const v1 = cgroup({
      'memory/box/memory.usage_in_bytes': '900',
      'memory/box/memory.limit_in_bytes': '1000',
      'memory/box/memory.stat': 'inactive_file 1\ntotal_inactive_file 400\n',
      self: '3:memory:/box\n0::/\n',
    });
    assert.deepEqual(await cgroupMemoryAt({ root: v1, self: join(v1, 'self') }), { current: 500, limit: 1000 });
  });

  it('falls back to the root when the own directory is not visible; working set never below zero', async () => {
    const root = cgroup({ 'memory.current': '10', 'memory.max': '100', self: '0::/not/mounted\n' });
    assert.deepEqual(await cgroupMemoryAt({ root, self: join(root, 'self') }), { current: 10, limit: 100 });
    assert.equal(workingSet(100, 'inactive_file 500\n', 'inactive_file'), 0);
    assert.equal(workingSet(100, 'total_inactive_file 30\n', 'inactive_file'), 100, 'the exact key only');
  });
});

describe('systemProbe', () => {
  it("reads the free bytes of the store's filesystem, and none for a store without one", async () => {
    const reading = await systemProbe(tmpdir(), atRoot(cgroup({})))();
    assert.ok((reading.diskFreeBytes ?? -1) > 0);
    assert.equal(reading.memory, null);
    assert.equal((await systemProbe(null, atRoot(cgroup({})))()).diskFreeBytes, null);
  });
});
