// What a `subscribe` start does with a resource update (producers reference §3.6), as pure policy: its options
// from the node's fields (`debounce_ms`, `window`, `coalesce`, `deliver`, `on_no_listener`), the durable sample
// ring of a `window`, whether an update opens a debounce window or only replaces its content, and where a firing
// goes: a new run, held until this node's live run ends, a signal to the workflow's live runs, or nowhere.
// No I/O: the caller keeps the state (timer-store rows) and applies the decision.

export type SubscribeDeliver = 'start' | 'signal';
export type NoListener = 'start' | 'drop';

export interface SubscribeOptions {
  /** 0: each update fires at once. */
  debounceMs: number;
  /** Samples a `window` keeps (0: no window). */
  samples: number;
  /** Hold a firing while a run this node started is live; the newest held fires once that run ends. */
  coalesce: boolean;
  /** `start`: a firing starts a run; `signal`: it is a signal (named the node's `uri`) to the workflow's live runs. */
  deliver: SubscribeDeliver;
  /** `deliver: signal` with no live run of the workflow: start one (`start`) or drop the firing (`drop`). */
  onNoListener: NoListener;
}

/** A window keeps at most this many samples (each is a resource's content, kept durably). */
export const MAX_WINDOW_SAMPLES = 100;

const DELIVERS: readonly string[] = ['start', 'signal'];
const NO_LISTENERS: readonly string[] = ['start', 'drop'];

/** `window` as a sample count: `{samples: N}` (the reference's form) or a bare N. */
function samplesOf(window: unknown): unknown {
  return window !== null && typeof window === 'object' ? (window as Record<string, unknown>)['samples'] : window;
}

/** Load problems of the delivery fields of a subscribe node, each naming its field. */
export function subscribeOptionProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (fields['window'] !== undefined) {
    const n = samplesOf(fields['window']);
    if (!(Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_WINDOW_SAMPLES))
      problems.push(`window: must be {samples: N} with N a whole number from 1 to ${MAX_WINDOW_SAMPLES}`);
  }
  if (fields['coalesce'] !== undefined && typeof fields['coalesce'] !== 'boolean')
    problems.push('coalesce: must be true or false');
  if (fields['deliver'] !== undefined && !DELIVERS.includes(String(fields['deliver'])))
    problems.push(`deliver: must be one of ${DELIVERS.join(', ')}`);
  if (fields['on_no_listener'] !== undefined) {
    if (!NO_LISTENERS.includes(String(fields['on_no_listener'])))
      problems.push(`on_no_listener: must be one of ${NO_LISTENERS.join(', ')}`);
    else if (fields['deliver'] !== 'signal') problems.push('on_no_listener: applies only with deliver: signal');
  }
  if (fields['coalesce'] === true && fields['deliver'] === 'signal')
    problems.push('coalesce: applies only with deliver: start');
  return problems;
}

/** The options of a checked subscribe node. */
export function subscribeOptions(fields: Readonly<Record<string, unknown>>): SubscribeOptions {
  const debounce = fields['debounce_ms'];
  const samples = samplesOf(fields['window']);
  return {
    debounceMs: typeof debounce === 'number' && debounce > 0 ? debounce : 0,
    samples: typeof samples === 'number' ? samples : 0,
    coalesce: fields['coalesce'] === true,
    deliver: fields['deliver'] === 'signal' ? 'signal' : 'start',
    onNoListener: fields['on_no_listener'] === 'drop' ? 'drop' : 'start',
  };
}

/** The ring after `content` joins it: the newest `samples`, oldest first. */
export function pushSample(ring: readonly unknown[], content: unknown, samples: number): unknown[] {
  return samples <= 0 ? [] : [...ring, content].slice(-samples);
}

/** An update that passed the filter: fire now, open a debounce window due at `due`, or join the open window. */
export type UpdateDecision = { type: 'fire' } | { type: 'open'; due: number } | { type: 'join' };

/** Reference §3.6: the first update opens the window; later ones only replace the content it fires with. */
export function planUpdate(opts: SubscribeOptions, openWindowDue: number | null, now: number): UpdateDecision {
  if (opts.debounceMs <= 0) return { type: 'fire' };
  return openWindowDue === null ? { type: 'open', due: now + opts.debounceMs } : { type: 'join' };
}

/** Where a firing goes. */
export type FiringDecision =
  | { type: 'start' }
  | { type: 'hold' }
  | { type: 'signal'; runs: readonly string[] }
  | { type: 'drop'; reason: 'no_listener' };

/**
 * Where a firing goes, given the live runs this node started (`mine`) and every live run of its workflow (`all`,
 * by id): `deliver: signal` reaches the workflow's live runs, else `on_no_listener` decides; `deliver: start`
 * starts a run unless `coalesce` holds it behind a live one of this node.
 */
export function planFiring(opts: SubscribeOptions, mine: number, all: readonly string[]): FiringDecision {
  if (opts.deliver === 'signal') {
    if (all.length > 0) return { type: 'signal', runs: all };
    return opts.onNoListener === 'drop' ? { type: 'drop', reason: 'no_listener' } : { type: 'start' };
  }
  return opts.coalesce && mine > 0 ? { type: 'hold' } : { type: 'start' };
}
