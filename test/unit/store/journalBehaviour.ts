// The tool journal in the Store behaviour suite (storeBehaviour.ts), alike in every backend (issue 19 item 3).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JournalEntry } from '../../../src/domain/journal.js';
import type { Store } from '../../../src/store/store.js';
import { inboxEvent } from './storeFixtures.js';

const entry = (key: string, result: unknown = { rows: [key] }): JournalEntry => ({
  key,
  args_hash: `h-${key}`,
  result,
  is_error: false,
  ts: 1_700_000_000_000,
});

export function describeJournal(current: () => Store): void {
  describe('tool journal', () => {
    it('keeps the first record of a key and lists one prefix in key order', async () => {
      const store = current();
      assert.equal(await store.journal.record(entry('agentd/c#ev1.1')), true);
      assert.equal(await store.journal.record(entry('agentd/c#ev1.0')), true);
      assert.equal(await store.journal.record(entry('agentd/c#ev2.0')), true);
      // The same key again (a second replica finishing the same call): the first answer stays.
      assert.equal(await store.journal.record({ ...entry('agentd/c#ev1.0', 'other'), is_error: true }), false);
      const listed = await store.journal.list('agentd/c#ev1.');
      assert.deepEqual(listed, [entry('agentd/c#ev1.0'), entry('agentd/c#ev1.1')]);
    });

    it('matches a prefix literally (no pattern characters)', async () => {
      const store = current();
      await store.journal.record(entry('a_b%#e.0'));
      await store.journal.record(entry('axb#e.0'));
      assert.deepEqual(
        (await store.journal.list('a_b%')).map((e) => e.key),
        ['a_b%#e.0'],
      );
      assert.deepEqual(await store.journal.list('nothing'), []);
    });

    it('prunes old entries of finished messages, never those of a pending one or newer ones', async () => {
      const store = current();
      const pending = inboxEvent({ payload: { context_id: 'c', text: 'still running', msg_depth: 0 } });
      await store.inbox.accept(pending);
      const at = (key: string, ts: number) => ({ ...entry(key), ts });
      await store.journal.record(at(`agentd/r#${pending.id}.0`, 1_000));
      await store.journal.record(at('agentd/r#finished.0', 1_000));
      await store.journal.record(at('agentd/r#finished.1', 1_000));
      await store.journal.record(at('agentd/r#recent.0', 9_000));
      // Without the retention nothing ever left the journal: all four would still be listed below.
      assert.equal(await store.journal.prune(5_000), 2);
      assert.deepEqual(
        (await store.journal.list('agentd/r#')).map((e) => e.key),
        [`agentd/r#${pending.id}.0`, 'agentd/r#recent.0'].sort(),
      );
      assert.equal(await store.journal.prune(5_000), 0, 'a second prune finds nothing more');
    });
  });
}
