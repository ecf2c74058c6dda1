// Which turns have ended (their worker is gone and their cleanups ran). A wait or a sync child registered after
// that moment (an await still reading the store, a subagent still being minted) must not outlive its turn.
// Keyed by the turn's cleanups list: the LiveTurn and the host's view of it are different objects sharing it.
const ended = new WeakSet<object>();

interface Ends {
  cleanups: Array<() => void>;
}

/** Marks `turn` ended; its later cleanups run at once. */
export function markTurnEnded(turn: Ends): void {
  ended.add(turn.cleanups);
}

export function turnEnded(turn: Ends): boolean {
  return ended.has(turn.cleanups);
}

/** Runs `cleanup` when `turn` ends, or now when it already has. */
export function whenTurnEnds(turn: Ends, cleanup: () => void): void {
  if (turnEnded(turn)) cleanup();
  else turn.cleanups.push(cleanup);
}
