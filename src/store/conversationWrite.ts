// Decides how a conversation's stored transcript catches up with the in-memory one: append the new tail, or
// rewrite it all (compaction changed the version, or the transcript shrank). Pure: no I/O.

/** What the store already holds for a conversation. */
export interface StoredTranscript {
  version: number;
  count: number;
}

export type MessageWrite = { kind: 'append'; from: number } | { kind: 'rewrite' };

/** Append from the stored count while the version holds (reference §2.3: version changes only on compaction). */
export function planMessageWrite(stored: StoredTranscript | null, version: number, length: number): MessageWrite {
  if (stored === null) return { kind: 'append', from: 0 };
  if (stored.version === version && stored.count <= length) return { kind: 'append', from: stored.count };
  return { kind: 'rewrite' };
}

/** The bytes a message takes in the store (the UTF-8 of its JSON): what stored-bytes quotas and the cache count. */
export function messageBytes(msg: unknown): number {
  return Buffer.byteLength(JSON.stringify(msg));
}
