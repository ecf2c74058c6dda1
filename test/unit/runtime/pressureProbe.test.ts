import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cgroupMemory, systemProbe } from '../../../src/runtime/pressureProbe.js';

/** A fake cgroup root with `files` (name → content). */
function cgroup(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentd-cgroup-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

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

describe('systemProbe', () => {
  it("reads the free bytes of the store's filesystem, and none for a store without one", async () => {
    const reading = await systemProbe(tmpdir(), cgroup({}))();
    assert.ok((reading.diskFreeBytes ?? -1) > 0);
    assert.equal(reading.memory, null);
    assert.equal((await systemProbe(null, cgroup({}))()).diskFreeBytes, null);
  });
});
