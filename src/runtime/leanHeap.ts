// The V8 flags agentd starts its own node processes with (workers, a daemon `agentd tui --start` launches): a small
// young generation. V8 grows each semi-space up to 16 MB under load and keeps the pages once touched, which an
// idle daemon or spare worker then holds for nothing; with 1 MB a scavenge runs more often and costs less. The
// `agentd` bin, started by the operator, gets the same at run time (`leanOwnHeapFlag`): V8 reads
// `--max-semi-space-size` only when the heap is made, but `--semi-space-growth-factor` at each growth, so a factor
// of 1 keeps the young generation at its initial 1 MB semi-space. The bin also goes without V8's optimizing
// compiler (`leanOwnCodeFlag`): the supervisor's own JavaScript is glue around JSON, SQLite and the pipes, and
// TurboFan's code and zones are ≈ 5 MB of an idle daemon's RSS (issue 14). Pure: reads the environment it is given.

/** The young generation's cap, in MB per semi-space. */
export const LEAN_SEMI_SPACE_MB = 1;

/** The operator sized the young generation (a flag of ours would override theirs). */
const SIZED = /--(max-)?semi-space-(size|growth-factor)/;

/**
 * Node flags for a process agentd spawns: the lean young generation, unless the operator's NODE_OPTIONS sizes it
 * (a flag on the command line would override theirs).
 */
export function leanHeapArgs(env: Readonly<Record<string, string | undefined>>): string[] {
  if (SIZED.test(env.NODE_OPTIONS ?? '')) return [];
  return [`--max-semi-space-size=${LEAN_SEMI_SPACE_MB}`];
}

/**
 * The V8 flag the `agentd` bin sets on itself before it loads the rest (`v8.setFlagsFromString`): its young
 * generation never grows past the initial 1 MB semi-space. Null when NODE_OPTIONS or node's own flags (`node
 * --max-semi-space-size=…`, as `agentd tui --start` and the deploy image start it) already size it.
 */
export function leanOwnHeapFlag(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[],
): string | null {
  return unlessChosen(SIZED, '--semi-space-growth-factor=1', env, execArgv);
}

type Env = Readonly<Record<string, string | undefined>>;

/** `flag`, or null when NODE_OPTIONS or node's own flags already say what `chosen` matches. */
function unlessChosen(chosen: RegExp, flag: string, env: Env, execArgv: readonly string[]): string | null {
  return chosen.test(`${env.NODE_OPTIONS ?? ''} ${execArgv.join(' ')}`) ? null : flag;
}

/** The operator chose about V8's optimizing compiler (`node --opt …`, `--turbofan`, `--no-opt`, …). */
const OPTIMIZER = /--(no-)?(opt|turbofan|maglev|always-opt)\b/;

/**
 * The V8 flag the `agentd` bin sets on itself at start: no optimizing compiler (TurboFan); the interpreter and
 * Sparkplug's baseline code run the supervisor. Null when node's own flags or NODE_OPTIONS name the optimizer
 * (`node --opt dist/src/cli/main.js` keeps it). Workers keep TurboFan: they run a turn's hot path.
 */
export function leanOwnCodeFlag(env: Env, execArgv: readonly string[]): string | null {
  return unlessChosen(OPTIMIZER, '--no-opt', env, execArgv);
}
