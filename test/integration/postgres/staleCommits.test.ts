// Two writers of one conversation over one real PostgreSQL (issue 19, found by the chaos test): a replica's copy is
// stale (another replica committed a reply since it read it); its first commit is refused, and a second commit it
// asked for before that refusal came back must be refused too, even when the other writer's commit made the
// stored revision equal the one it expected. Before, that second commit rewrote the transcript without the reply.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import { silentLogger } from '../../../src/obs/log.js';
import { orderedStore } from '../../../src/store/commitQueue.js';
import { PostgresStore } from '../../../src/store/postgresStore.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';

let url = '';
const opened: PostgresStore[] = [];
before(async () => {
  url = await createTestDatabase('stale_commits');
});
after(async () => {
  for (const s of opened) await s.close();
  await stopLazyServer();
});

async function open(name: string): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, poolSize: 4, replica: name });
  opened.push(store);
  return store;
}

describe('commits of a stale copy', () => {
  it('refuses a commit queued behind a refused one of the same copy, whatever the stored revision', async () => {
    const r1 = orderedStore(await open('r1'));
    const r2 = orderedStore(await open('r2'));
    const mine = new ConversationBook(r1, silentLogger, () => 1);
    const conv = mine.open('c', 'alice');
    mine.append(conv, [{ role: 'user', text: 'one', ts: 1 }]);
    await mine.saveNow(conv);
    // The other replica reads it and commits its reply (revision 2).
    const theirs = new ConversationBook(r2, silentLogger, () => 2);
    const copy = await theirs.fetch('c');
    assert.ok(copy);
    theirs.append(copy, [{ role: 'assistant', text: 'reply', tool_calls: [], ts: 2 }]);
    await theirs.saveNow(copy);
    // r1's copy still ends at "one": two commits asked for at once, the first expects revision 1, the second 2.
    mine.append(conv, [{ role: 'user', text: 'two', ts: 3 }]);
    const first = mine.saveNow(conv);
    mine.append(conv, [{ role: 'user', text: 'three', ts: 4 }]);
    const second = mine.saveNow(conv);
    await Promise.all([first, second]);
    const stored = await r2.conversations.get('c');
    const texts = stored?.conversation.messages.map((m) => ('text' in m ? m.text : ''));
    assert.deepEqual(texts, ['one', 'reply'], "the other replica's reply stays; nothing of the stale copy lands");
    assert.equal(stored?.revision, 2);
  });
});
