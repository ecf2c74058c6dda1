// What the supervisor knows of every conversation, resident in memory or not: its owner and its stored bytes
// (quotas, the status view, ownership checks), read at start without a single message.
import type { Msg } from '../protocol/messages.js';
import { messageBytes } from '../store/conversationWrite.js';
import type { ConversationHead } from '../store/store.js';

interface Head {
  principal: string | null;
  /** Stored messages' bytes (as the store counts them). */
  bytes: number;
  /** As stored at start: an active goal is pending work. */
  activeGoal: boolean;
}

export class ConversationHeads {
  private readonly byId = new Map<string, Head>();

  /** Takes the stored heads (start-up); returns the ids with an active goal. */
  restore(heads: readonly ConversationHead[]): string[] {
    for (const { id, principal, bytes, activeGoal } of heads) this.byId.set(id, { principal, bytes, activeGoal });
    return heads.filter((h) => h.activeGoal).map((h) => h.id);
  }

  /** A conversation created here. */
  add(id: string, principal: string | null): void {
    this.byId.set(id, { principal, bytes: 0, activeGoal: false });
  }

  /** A conversation this replica gave up before any commit of it stuck: the store tells whether it exists. */
  remove(id: string): void {
    this.byId.delete(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get size(): number {
    return this.byId.size;
  }

  bytesOf(id: string): number {
    return this.byId.get(id)?.bytes ?? 0;
  }

  /** Recounts a conversation's bytes from its messages (loaded, or compacted). */
  recount(id: string, messages: readonly Msg[]): void {
    const head = this.byId.get(id);
    if (head) head.bytes = messages.reduce((sum, m) => sum + messageBytes(m), 0);
  }

  /** Counts appended messages. */
  grow(id: string, msgs: readonly Msg[]): void {
    const head = this.byId.get(id);
    if (head) head.bytes += msgs.reduce((sum, m) => sum + messageBytes(m), 0);
  }

  /** The principal that owns `id`, or null (unknown, or nobody's). */
  ownerOf(id: string): string | null {
    return this.byId.get(id)?.principal ?? null;
  }

  /** What `principal` holds: how many conversations it owns and their stored bytes. */
  usage(principal: string): { conversations: number; bytes: number } {
    let conversations = 0;
    let bytes = 0;
    for (const head of this.byId.values()) {
      if (head.principal !== principal) continue;
      conversations++;
      bytes += head.bytes;
    }
    return { conversations, bytes };
  }

  /** Every conversation's id and owner (the status view). */
  owners(): { id: string; principal: string | null }[] {
    return [...this.byId].map(([id, head]) => ({ id, principal: head.principal }));
  }
}
