// The fold marks of the conversation book: folds not committed yet, by conversation, each with where its messages
// start. Until a fold's own commit (with its inbox-done) sticks, other writes of that conversation stop short of
// its messages: a crash between the two would otherwise keep the reply while the event replays, and the reply
// would appear twice. A fold whose commit is already queued no longer stops anyone short (see `cap`).

export class FoldMarks {
  /** Conversation → inbox event → the index its fold's messages start at. */
  readonly #byConversation = new Map<string, Map<string, number>>();
  /** Folds whose commit is queued and not settled. */
  readonly #sent = new Set<string>();

  /** Marks the messages from `from` on as the fold of `eventId`; a second mark of the same fold keeps the first. */
  hold(id: string, eventId: string, from: number): void {
    const held = this.#byConversation.get(id) ?? new Map<string, number>();
    if (!held.has(eventId)) held.set(eventId, from);
    this.#byConversation.set(id, held);
  }

  has(id: string): boolean {
    return this.#byConversation.has(id);
  }

  /**
   * How many messages a commit may write: all of them, but for those of folds other than `foldOf` whose commit is
   * not queued yet. A queued fold commits first; if it fails, so does this commit (its revision builds on that
   * one's), and a cap under what that fold writes would shrink the stored transcript once it committed.
   */
  cap(id: string, foldOf: string | undefined): number {
    let cap = Number.POSITIVE_INFINITY;
    for (const [eventId, from] of this.#byConversation.get(id) ?? []) {
      if (eventId !== foldOf && !this.#sent.has(eventId)) cap = Math.min(cap, from);
    }
    return cap;
  }

  /** The fold's commit is queued (`true`) or settled (`false`). */
  sent(eventId: string, queued: boolean): void {
    if (queued) this.#sent.add(eventId);
    else this.#sent.delete(eventId);
  }

  /** The fold committed: its mark goes. */
  release(id: string, eventId: string): void {
    const held = this.#byConversation.get(id);
    held?.delete(eventId);
    if (held?.size === 0) this.#byConversation.delete(id);
  }

  /** Compaction removed `removed` messages from the front: the marks move that many places earlier. */
  shift(id: string, removed: number): void {
    const held = this.#byConversation.get(id);
    for (const [eventId, from] of held ?? []) held?.set(eventId, Math.max(0, from - removed));
  }

  /** The conversation's copy was dropped: its marks go with it. */
  forget(id: string): void {
    this.#byConversation.delete(id);
  }
}
