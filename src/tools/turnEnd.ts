// Whether a turn has ended (its worker is gone and its cleanups ran). A wait or a sync child registered after
// that moment (an await still reading the store, a subagent still being minted) must not outlive its turn.
// One object per turn, shared by the LiveTurn and the host's view of it (they are different objects).

/** A turn's end: the flag and what runs at it. */
export interface TurnEnd {
  ended: boolean;
  cleanups: Array<() => void>;
}

export function turnEnd(): TurnEnd {
  return { ended: false, cleanups: [] };
}

/** Marks the turn ended and runs its cleanups; cleanups registered later run at once. */
export function endTurn(end: TurnEnd): void {
  end.ended = true;
  for (const cleanup of end.cleanups.splice(0)) cleanup();
}

/** Runs `cleanup` when the turn ends, or now when it already has. */
export function whenTurnEnds(end: TurnEnd, cleanup: () => void): void {
  if (end.ended) cleanup();
  else end.cleanups.push(cleanup);
}
