// The open-time check tells damage from a file it could not read (issue 13 item 7, docs/concepts/durability.md):
// only SQLite's verdict is corruption; an I/O failure is store_io and sends nobody to a recovery.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { exitCodeForError } from '../../../src/cli/exitCodes.js';
import { DaemonError } from '../../../src/errors.js';
import { checkIntegrity } from '../../../src/store/sqliteCheck.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'agentd-check-'));

describe('checkIntegrity', () => {
  it('calls a file it cannot read an I/O error, not corruption', () => {
    // A read that fails with SQLITE_IOERR_READ ("disk I/O error"), as a full disk or a bad mount gives. Premise: the
    // check used to turn any open or read failure into store_corrupt and point at the recovery that drops rows.
    const dir = freshDir();
    const file = path.join(dir, 'agentd.db');
    mkdirSync(file);
    assert.throws(
      () => checkIntegrity(file, 'quick'),
      (err: unknown) =>
        err instanceof DaemonError &&
        err.code === 'store_io' &&
        err.retryable &&
        err.message.includes(`store ${file} could not be read for its quick_check`) &&
        err.message.includes('SQLITE_IOERR') &&
        !err.message.includes('.recover'),
    );
  });

  it('an unreadable store exits 1 (not the config code 2 a damaged one gets)', () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, 'agentd.db'));
    let caught: unknown;
    try {
      new SqliteStore(dir).close();
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof DaemonError && caught.code === 'store_io', String(caught));
    assert.equal(exitCodeForError(caught), 1);
  });

  it('reports the mode and the time a check took, and nothing for a missing file or off', () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const file = path.join(dir, 'agentd.db');
    let t = 1000;
    const clock = () => {
      t += 7;
      return t;
    };
    assert.deepEqual(checkIntegrity(file, 'full', clock), { mode: 'full', ms: 7 });
    assert.equal(checkIntegrity(file, 'off', clock), null);
    assert.equal(checkIntegrity(path.join(dir, 'absent.db'), 'quick', clock), null);
    const store = new SqliteStore(dir);
    assert.equal(store.checked?.mode, 'quick');
    store.close();
  });
});
