// The memory tool's entries. Plain data only.

export interface MemoryEntry {
  key: string;
  value: unknown;
  /** Epoch ms after which the entry reads as absent; null = never. */
  expires: number | null;
  updated: number;
}

/**
 * Key prefixes agentd keeps for itself in the memory store (artifacts and spilled outputs, the step cache, workflow
 * records): the memory tools and the memory.* workflow kinds neither read, list, write nor delete them, so a model or
 * a run cannot read a sensitive artifact in clear, forge a spill or drop a cache entry through them.
 */
export const RESERVED_MEMORY_PREFIXES: readonly string[] = ['_artifacts/', '_cache/', '_workflows/'];

/** The reserved prefix `key` is under, or null. */
export function reservedMemoryPrefix(key: string): string | null {
  return RESERVED_MEMORY_PREFIXES.find((p) => key.startsWith(p)) ?? null;
}

/** The one-line refusal of a memory key (or list prefix) under a reserved prefix (`what` names the tool or kind), or null. */
export function reservedKeyProblem(what: string, key: string, noun: 'key' | 'prefix' = 'key'): string | null {
  const prefix = reservedMemoryPrefix(key);
  return prefix === null ? null : `${what}: ${noun} "${key}" is under "${prefix}", which agentd keeps for itself`;
}
