// The supervisor's conversations in memory, which of them changed since the last checkpoint, and the checkpoint.
import { appendMessage, newConversation } from '../context/conversation.js';
import type { Conversation } from '../domain/conversation.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';

export class ConversationBook {
  private readonly byId = new Map<string, Conversation>();
  private readonly dirty = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Loads every stored conversation (start-up). */
  load(): void {
    for (const c of this.store.loadConversations()) this.byId.set(c.id, c);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Every conversation, in no particular order. */
  list(): Conversation[] {
    return [...this.byId.values()];
  }

  get(id: string): Conversation | undefined {
    return this.byId.get(id);
  }

  /** The conversation, created (owned by `principal`) on first use. */
  open(id: string, principal: string | null): Conversation {
    let conv = this.byId.get(id);
    if (!conv) {
      // root always belongs to the operator, whoever touches it first.
      const root = id === 'root';
      conv = newConversation(id, root ? 'root' : 'conversation', root ? 'operator' : principal, this.now());
      this.byId.set(id, conv);
      this.dirty.add(id);
    }
    return conv;
  }

  markDirty(id: string): void {
    this.dirty.add(id);
  }

  /** `id` was just written by another path (a fold commit). */
  markClean(id: string): void {
    this.dirty.delete(id);
  }

  /** Writes every changed conversation in one transaction; on failure they stay dirty and the next step retries. */
  /**
   * Appends a `[note]` and writes the conversation at once: the note is durable when this returns. A conversation
   * it creates belongs to `owner` (never to nobody, which anyone could reach).
   */
  noteNow(id: string, text: string, owner: string | null): void {
    const conv = this.open(id, owner);
    appendMessage(conv, { role: 'note', text, ts: this.now() }, this.now());
    this.saveNow(conv);
  }

  /** Writes the conversation at once (throws when the store refuses): a control change is durable on return. */
  saveNow(conv: Conversation): void {
    this.store.saveConversations([conv]);
    this.dirty.delete(conv.id);
  }

  checkpoint(): void {
    if (this.dirty.size === 0) return;
    const list = [...this.dirty].map((id) => this.byId.get(id)).filter((c) => c !== undefined);
    try {
      this.store.saveConversations(list);
      this.dirty.clear();
    } catch (err) {
      this.log.error('store.checkpoint.fail', { err: describeError(err) });
    }
  }
}
