// Freezes the exit-code table: users script against these numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT, exitCodeForError, exitCodeForFinish, exitCodeForStatus } from '../../../src/cli/exitCodes.js';
import { DaemonError } from '../../../src/errors.js';
import { TURN_STATUSES, workerExitCode } from '../../../src/protocol/status.js';

describe('exit codes', () => {
  it('pins the instance table', () => {
    assert.deepEqual(EXIT, {
      ok: 0,
      generic: 1,
      config: 2,
      loopDetected: 3,
      intel: 4,
      refused: 5,
      mcp: 6,
      budget: 7,
      deadline: 124,
    });
  });

  it('maps every status of a job', () => {
    const table = Object.fromEntries(TURN_STATUSES.map((s) => [s, exitCodeForStatus(s)]));
    assert.deepEqual(table, {
      completed: 0,
      failed: 1,
      cancelled: 1,
      refused: 5,
      exhausted_steps: 7,
      exhausted_tokens: 7,
      deadline: 124,
      loop_detected: 3,
    });
    assert.equal(exitCodeForStatus('failed', 'intel: HTTP 503'), 4);
    assert.equal(exitCodeForStatus('failed', "mcp 'fs': connection refused"), 6);
  });

  it('maps worker exits as reference §14.1', () => {
    const table = Object.fromEntries(TURN_STATUSES.map((s) => [s, workerExitCode(s)]));
    assert.deepEqual(table, {
      completed: 0,
      failed: 1,
      cancelled: 1,
      refused: 5,
      exhausted_steps: 7,
      exhausted_tokens: 7,
      deadline: 124,
      loop_detected: 3,
    });
    assert.equal(workerExitCode('failed', 'intel: down'), 4);
  });

  it('maps finish statuses and errors', () => {
    assert.equal(exitCodeForFinish(undefined), 0);
    assert.equal(exitCodeForFinish('refused'), 5);
    assert.equal(exitCodeForFinish('failed'), 1);
    assert.equal(exitCodeForError(new DaemonError('config_invalid', 'x')), 2);
    assert.equal(exitCodeForError(new DaemonError('store_locked', 'x')), 2);
    assert.equal(exitCodeForError(new Error('x')), 1);
  });
});
