// The transcript side of the replicas' store: a conversation written over its stored rows (appended, or rewritten
// after a compaction) and read back. Inside the caller's transaction; the fence is the caller's.
import type { Conversation } from '../domain/conversation.js';
import { DaemonError } from '../errors.js';
import { planMessageWrite } from './conversationWrite.js';
import { SQL } from './postgresStatements.js';
import type { Query } from './postgresTransaction.js';
import { type ConversationRow, conversationParams, toStoredConversation, toStoredConversations } from './sqliteRows.js';
import type { StoredConversation } from './store.js';

export async function writeOne(
  q: Query,
  conv: Conversation,
  stored: { version: number; count: number } | null,
  revision: number,
): Promise<void> {
  const write = planMessageWrite(stored, conv.version, conv.messages.length);
  const p = conversationParams(conv, revision);
  const row = [p.id, p.kind, p.version, p.summary, p.plan, p.principal, p.turns, p.created, p.updated];
  const upserted = await q(SQL.upsertConversation, [...row, p.message_count, p.skills, p.revision]);
  // A row another writer inserted after our read (two first commits at once): the revision moved on.
  if (upserted.rowCount !== 1) {
    throw new DaemonError('store_conflict', `conversation ${conv.id}: another writer committed it first`);
  }
  if (conv.controls) await q(SQL.saveControls, [conv.id, JSON.stringify(conv.controls)]);
  let from = 0;
  if (write.kind === 'rewrite') await q(SQL.deleteMessages, [conv.id]);
  else from = write.from;
  if (from >= conv.messages.length) return;
  const idx: number[] = [];
  const json: string[] = [];
  for (let i = from; i < conv.messages.length; i++) {
    idx.push(i);
    json.push(JSON.stringify(conv.messages[i]));
  }
  await q(SQL.insertMessages, [conv.id, idx, json]);
}

export async function loadConversations(q: Query): Promise<StoredConversation[]> {
  const messages = (await q(SQL.allMessages)).rows;
  const controls = (await q(SQL.allControls)).rows;
  return toStoredConversations((await q(SQL.conversations)).rows, messages, controls);
}

export async function loadConversation(q: Query, id: string): Promise<StoredConversation | null> {
  const row = (await q(SQL.conversationById, [id])).rows[0] as ConversationRow | undefined;
  if (row === undefined) return null;
  const messages = (await q(SQL.messagesOf, [id])).rows.map((m) => m.json as string);
  return toStoredConversation(row, messages, (await q(SQL.controlsOf, [id])).rows[0]?.json);
}
