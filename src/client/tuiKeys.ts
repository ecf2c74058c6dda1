// What the terminal UI's keys do beyond typing (issue 18 item 3; interfaces reference §1.6, §6.2): Esc cancels the
// running turn and Ctrl+C quits, each behind a confirmation when it would stop work. Pure: a key and what runs in,
// a decision out; the app performs it.

/** A confirmation waiting for its answer: what it confirms, and the task a cancel would stop. */
export type Pending = { what: 'quit' } | { what: 'cancel'; task: string };

export interface KeyPress {
  input: string;
  escape: boolean;
  ctrl: boolean;
}

export type KeyDecision =
  /** Not a key this policy owns: the composer takes it. */
  | { type: 'pass' }
  | { type: 'quit' }
  | { type: 'cancel'; task: string }
  /** Ask first (promptFor shows the question) and decide on the next key. */
  | { type: 'ask'; pending: Pending }
  /** The confirmation was declined (any other key): nothing happens, the key is spent. */
  | { type: 'dismiss' };

const isCtrlC = (k: KeyPress): boolean => k.ctrl && k.input === 'c';

/** The confirmation's line, as the app shows it above the composer. */
export function promptFor(p: Pending): string {
  return p.what === 'quit'
    ? 'a turn is running: quit anyway? y or ^C quits · any other key stays'
    : `cancel the running turn (task ${p.task})? y or esc cancels it · any other key keeps it`;
}

/**
 * The decision for one key. `running` is the newest task still running in view (the one Esc would cancel), null
 * when nothing runs there; `pending` is a confirmation being asked. Repeating the key that asked (Esc Esc, ^C ^C)
 * confirms as `y` does, so the habit of pressing twice works.
 */
export function decideKey(key: KeyPress, pending: Pending | null, running: string | null): KeyDecision {
  if (pending !== null) {
    const yes = key.input === 'y' || key.input === 'Y';
    if (pending.what === 'quit' && (yes || isCtrlC(key))) return { type: 'quit' };
    if (pending.what === 'cancel' && (yes || key.escape)) return { type: 'cancel', task: pending.task };
    return { type: 'dismiss' };
  }
  if (isCtrlC(key)) {
    if (running === null) return { type: 'quit' };
    return { type: 'ask', pending: { what: 'quit' } };
  }
  if (key.escape && running !== null) {
    return { type: 'ask', pending: { what: 'cancel', task: running } };
  }
  return { type: 'pass' };
}
