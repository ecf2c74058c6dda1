import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { watchConfigFiles } from '../../../src/cli/reloadTriggers.js';
import { silentLogger } from '../../../src/obs/log.js';
import { waitUntil } from '../../integration/wait.js';

describe('--watch-config', () => {
  // Before close() cleared the settle timer, a change seen just before the stop still reloaded after it.
  it('a change still settling when the watch closes reloads nothing; an open watch reloads once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-watch-'));
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'agent: {}\n');
    const counts = { closed: 0, open: 0 };
    const watch = (key: keyof typeof counts) =>
      watchConfigFiles({ files: [file], cwd: dir, log: silentLogger, settleMs: 1_000, reload: () => counts[key]++ });
    const closing = watch('closed');
    const open = watch('open');
    try {
      writeFileSync(file, 'agent: {preflight: never}\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      closing.close();
      // The premise: the same change reaches a watch left open, which reloads once it settles.
      await waitUntil(() => counts.open === 1, 10_000, 'the open watch reloads');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(counts.closed, 0);
    } finally {
      open.close();
    }
  });
});
