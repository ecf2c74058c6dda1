// `agentd tui --start` stops the daemon it started when the TUI ends; a daemon that already died must not hang it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { stopDaemon } from '../../../src/cli/tuiCommand.js';
import { within } from '../wait.js';

describe('stopDaemon', { timeout: 30_000 }, () => {
  it('answers at once with the exit code of a daemon that already exited', async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    await once(child, 'exit');
    // Premise: the process is gone, so no further `exit` event will ever come (the old wait hung here).
    assert.equal(child.exitCode, 3);
    assert.equal(await within(stopDaemon(child), 5_000, 'stopDaemon of a dead daemon'), 3);
  });

  it('still drains a live daemon with SIGTERM', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    assert.equal(await within(stopDaemon(child), 10_000, 'stopDaemon of a live daemon'), 1);
  });
});
