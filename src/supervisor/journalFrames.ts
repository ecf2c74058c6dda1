// The supervisor's side of the tool journal's frames (interfaces reference §4.4), shared by turn and subagent
// workers: a `journal_lookup` answered with the completed call's answer, a `journal_record` stored. The worker
// decides what to look up and record (worker/toolJournal.ts); this only reads and writes the port.
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { UpFrame } from '../protocol/frames.js';
import type { JournalPort } from '../store/store.js';

type Lookup = Extract<UpFrame, { type: 'journal_lookup' }>;
type Record = Extract<UpFrame, { type: 'journal_record' }>;

/** Reports a journal read or write that failed (`tool.journal_fail`): the call runs, or its record is lost. */
export type JournalFailed = (key: string, err: string) => void;

/** The `tool.journal_fail` reporter for calls made in conversation `ctx`. */
export function journalFailed(log: Logger, ctx: string): JournalFailed {
  return (key, err) => log.warn('tool.journal_fail', { ctx, key, err });
}

/** The completed call's answer when its arguments match, else null (also when the journal cannot be read). */
export async function lookUpCall(
  journal: JournalPort | undefined,
  f: Lookup,
  failed: JournalFailed,
): Promise<{ result: unknown; is_error: boolean } | null> {
  try {
    const hit = (await journal?.list(f.key))?.find((e) => e.key === f.key && e.args_hash === f.args_hash);
    return hit ? { result: hit.result, is_error: hit.is_error } : null;
  } catch (err) {
    failed(f.key, describeError(err));
    return null;
  }
}

/** Records a completed call, first record winning. */
export function recordCall(journal: JournalPort | undefined, f: Record, now: number, failed: JournalFailed): void {
  const entry = { key: f.key, args_hash: f.args_hash, result: f.result, is_error: f.is_error, ts: now };
  journal?.record(entry).catch((err: unknown) => failed(f.key, describeError(err)));
}
