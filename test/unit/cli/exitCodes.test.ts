// Freezes the exit-code table: users script against these numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EXIT,
  exitCodeForError,
  exitCodeForFinish,
  exitCodeForOutcome,
  exitCodeForStatus,
} from '../../../src/cli/exitCodes.js';
import { DaemonError } from '../../../src/errors.js';
import { EXIT as PROTOCOL_EXIT } from '../../../src/protocol/exitTable.js';
import {
  errorKindOf,
  exitCodeForTurn,
  TURN_ERROR_KINDS,
  TURN_STATUSES,
  type TurnErrorKind,
} from '../../../src/protocol/status.js';

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
    assert.equal(EXIT, PROTOCOL_EXIT, 'one table: the CLI re-exports the one the worker uses');
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
  });

  it('still maps a failed turn by its error text, as embedders called it before error kinds', () => {
    assert.equal(exitCodeForStatus('failed', "mcp 'fs': unreachable"), EXIT.mcp);
    assert.equal(exitCodeForStatus('failed', 'intel: HTTP 401'), EXIT.intel);
    assert.equal(exitCodeForStatus('failed', 'something else broke'), EXIT.generic);
  });

  it('maps a failed turn by its error kind, and only a failed one', () => {
    const failed = Object.fromEntries(TURN_ERROR_KINDS.map((k) => [k, exitCodeForStatus('failed', k)]));
    assert.deepEqual(failed, {
      intel: 4,
      mcp: 6,
      budget: 7,
      deadline: 1,
      cancelled: 1,
      refused: 1,
      loop: 1,
      answer: 1,
      worker: 1,
      stale: 1,
      internal: 1,
    });
    for (const kind of TURN_ERROR_KINDS) assert.equal(exitCodeForStatus('cancelled', kind), 1);
  });

  it('maps an outcome by its kind; the human text never decides when a kind is there', () => {
    const failed = (error: string, error_kind?: TurnErrorKind) =>
      exitCodeForOutcome({ status: 'failed', reply: '', error, ...(error_kind ? { error_kind } : {}) });
    assert.equal(failed('model down', 'intel'), 4);
    assert.equal(failed("could not reach 'fs'", 'mcp'), 6);
    assert.equal(failed('intel: looks like a model error', 'worker'), 1);
    assert.equal(exitCodeForOutcome({ status: 'completed', reply: '', finish_status: 'refused' }), 5);
  });

  it('reads outcomes stored before kinds existed by their text', () => {
    assert.equal(errorKindOf({ error: 'intel: HTTP 503' }), 'intel');
    assert.equal(errorKindOf({ error: "mcp 'fs': connection refused" }), 'mcp');
    assert.equal(errorKindOf({ error: 'worker exited without a result' }), undefined);
    assert.equal(errorKindOf({ error: 'intel: x', error_kind: 'bogus' }), 'intel', 'an unknown kind falls back');
    assert.equal(exitCodeForOutcome({ status: 'failed', reply: '', error: 'intel: HTTP 503' }), 4);
    assert.equal(exitCodeForOutcome({ status: 'failed', reply: '', error: "mcp 'fs': connection refused" }), 6);
  });

  it('maps worker exits as reference §14.1', () => {
    const table = Object.fromEntries(TURN_STATUSES.map((s) => [s, exitCodeForTurn(s)]));
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
    assert.equal(exitCodeForTurn('failed', 'intel'), 4);
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
