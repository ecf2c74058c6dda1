// The memory tool's entries. Plain data only.

export interface MemoryEntry {
  key: string;
  value: unknown;
  /** Epoch ms after which the entry reads as absent; null = never. */
  expires: number | null;
  updated: number;
}
