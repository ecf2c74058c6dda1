// Which turns have ended (their worker is gone and their cleanups ran). A wait registered after that moment (an
// await that was still reading the store) must not outlive its turn: it checks here and ends at once.
const ended = new WeakSet<object>();

/** Marks `turn` ended; its later waits resolve at once. */
export function markTurnEnded(turn: object): void {
  ended.add(turn);
}

export function turnEnded(turn: object): boolean {
  return ended.has(turn);
}
