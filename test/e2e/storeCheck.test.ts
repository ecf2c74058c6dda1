// A damaged store is found at open, before anything writes to it (issue 13 item 7): the real binary exits 2
// naming the file and the recovery command, and the file stays byte-identical.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Overwrites the root page of `table` with garbage (what a bad sector or a stray write leaves). */
function damageTable(file: string, table: string): void {
  const db = new Database(file, { readonly: true });
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as {
    rootpage: number;
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
  closeSync(fd);
}

describe('store integrity check at open', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'stored answer' }] });
  });
  after(async () => model.close());

  /** A real store holding one answered conversation, the daemon stopped cleanly. */
  async function storeWithWork(): Promise<{ dir: string; file: string }> {
    const dir = tempStateDir();
    const run = await runAgentd(['--intelligence', model.url, '--prompt', 'remember this'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(run.code, 0, run.stderr);
    const file = join(dir, 'agentd.db');
    assert.equal(existsSync(`${file}-wal`), false, 'a clean stop leaves no WAL beside the file');
    return { dir, file };
  }

  for (const table of ['messages', 'inbox']) {
    it(`a damaged ${table} page exits 2 naming the file and the recovery, the file untouched`, async () => {
      const { dir, file } = await storeWithWork();
      damageTable(file, table);
      const before = digest(file);
      const run = await runAgentd(['--intelligence', model.url, '--prompt', 'again'], {
        env: { AGENTD_STATE_DIR: dir },
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`store ${file.replace(/[/.]/g, '\\$&')} failed its quick_check`));
      assert.match(run.stderr, /sqlite3 -readonly '.*agentd\.db' \.recover/);
      assert.equal(eventsNamed(run, 'store.opened').length, 0);
      assert.equal(digest(file), before, 'the damaged file is byte-identical');
      // The read-only check may leave an empty WAL beside it (SQLite's read-only WAL access), never content.
      if (existsSync(`${file}-wal`)) assert.equal(statSync(`${file}-wal`).size, 0);
    });
  }

  it('premise: with the check off, the damaged conversation page is written to and the run fails otherwise', async () => {
    const { dir, file } = await storeWithWork();
    damageTable(file, 'messages');
    const before = digest(file);
    const config = join(dir, 'off.yaml');
    writeFileSync(config, 'store: {integrity_check: off}\n');
    const run = await runAgentd(['--config', config, '--intelligence', model.url, '--prompt', 'again'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(eventsNamed(run, 'store.opened').length, 1, 'opened without a check');
    assert.notEqual(digest(file), before, 'without the check the open writes to the damaged file');
  });

  it('store.integrity_check: full runs integrity_check; a sound store opens', async () => {
    const { dir } = await storeWithWork();
    const config = join(dir, 'full.yaml');
    writeFileSync(config, 'store: {integrity_check: full}\n');
    const run = await runAgentd(['--config', config, '--intelligence', model.url, '--prompt', 'remember this'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'stored answer\n');
  });

  it('the documented recovery steps rebuild a store the daemon opens again', async () => {
    const { dir, file } = await storeWithWork();
    damageTable(file, 'inbox');
    writeFileSync(`${file}-wal`, 'stands for a WAL the crash left');
    // docs/concepts/durability.md "Recovering a store", the .dump route (works with every sqlite3 build, .recover needs sqlite_dbpage).
    const script = [
      `cd '${dir}'`,
      `sqlite3 -readonly agentd.db .dump | sed 's/^ROLLBACK; -- due to errors$/COMMIT;/' | sqlite3 agentd.db.recovered`,
      `test "$(sqlite3 agentd.db.recovered 'PRAGMA integrity_check')" = ok`,
      'for f in agentd.db agentd.db-wal agentd.db-shm; do if [ -e "$f" ]; then mv "$f" "damaged-$f"; fi; done',
      'mv agentd.db.recovered agentd.db',
    ].join(' && ');
    execFileSync('sh', ['-c', script], { timeout: 20_000 });
    // Premise: the old steps ran `rm -f agentd.db-wal`, losing what the WAL held; now it moves with the damaged file.
    assert.equal(readFileSync(join(dir, 'damaged-agentd.db-wal'), 'utf8'), 'stands for a WAL the crash left');
    const db = new Database(file, { readonly: true });
    const messages = db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number };
    db.close();
    assert.ok(messages.n >= 2, 'the conversation survived the recovery');
    const run = await runAgentd(['--intelligence', model.url, '--prompt', 'after recovery'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(eventsNamed(run, 'store.opened').length, 1);
  });
});
