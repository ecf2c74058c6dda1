// Loop detection (reference §11.4, §21.1): identical `<name>:<args>` signatures counted over the WHOLE turn.
// Pure: the caller keeps the counts and decides before executing, so the repeating call never runs.

/** The occurrence of one signature that ends the turn `loop_detected`. */
export const LOOP_REPEATS = 4;

/** Per-turn signature counts; plain data owned by the round loop. */
export type LoopCounts = ReadonlyMap<string, number>;

/** `<name>:<compact JSON of arguments>`; key order is the model's, as agentd compares bytes. */
export function callSignature(name: string, args: unknown): string {
  return `${name}:${JSON.stringify(args ?? null)}`;
}

export interface LoopVerdict {
  counts: Map<string, number>;
  /** How many times this signature has occurred in the turn, this call included. */
  count: number;
  looped: boolean;
}

/** Records one call and says whether it is the LOOP_REPEATS-th identical one. */
export function observeCall(counts: LoopCounts, name: string, args: unknown): LoopVerdict {
  const signature = callSignature(name, args);
  const count = (counts.get(signature) ?? 0) + 1;
  const next = new Map(counts);
  next.set(signature, count);
  return { counts: next, count, looped: count >= LOOP_REPEATS };
}

/** The turn error for a detected loop. */
export function loopError(name: string): string {
  return `the model repeated ${name} with identical arguments ${LOOP_REPEATS} times`;
}
