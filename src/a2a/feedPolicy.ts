// The client feed's rules (issue 18 item 1), pure: who sees an event, and where a reconnecting client resumes.
import { AUDIENCE_ALL, type FeedBounds, type FeedEvent } from '../domain/feed.js';
import type { Principal } from './backend.js';

/** The operator sees every event; anyone else the instance-wide ones and those of its own conversations. */
export function canSee(viewer: Pick<Principal, 'id' | 'role'>, event: Pick<FeedEvent, 'audience'>): boolean {
  if (viewer.role === 'operator') return true;
  return event.audience === AUDIENCE_ALL || event.audience === viewer.id;
}

/** Where a stream starts: after `from`; `reload` when the client's state cannot be brought up to date by replay. */
export interface ResumePlan {
  from: number;
  reload: boolean;
}

/**
 * A cursor (`since` / `Last-Event-ID`; null = everything retained) against the retained range. Events after the
 * cursor that retention dropped ⇒ reload from the oldest retained; a cursor past the newest seq ever given (a
 * store that was replaced) ⇒ reload from the start. Otherwise replay exactly what follows the cursor.
 */
export function planResume(cursor: number | null, bounds: FeedBounds): ResumePlan {
  const oldest = bounds.oldest ?? bounds.newest + 1;
  if (cursor === null) return { from: oldest - 1, reload: false };
  if (cursor > bounds.newest) return { from: oldest - 1, reload: true };
  if (cursor < oldest - 1) return { from: oldest - 1, reload: true };
  return { from: cursor, reload: false };
}

/**
 * Reads `?since=` and `Last-Event-ID` (the header wins: a browser's EventSource sends it on reconnect with the
 * first URL). `latest` = only what happens from now on. Null = from the oldest retained; a string = refusal.
 */
export function readCursor(
  since: string | null,
  lastEventId: string | undefined,
  newest: number,
): number | null | { refused: string } {
  const raw = lastEventId !== undefined && lastEventId !== '' ? lastEventId : since;
  if (raw === null || raw === '') return null;
  if (raw === 'latest') return newest;
  if (!/^\d{1,15}$/.test(raw)) return { refused: `feed cursor ${JSON.stringify(raw.slice(0, 40))}: expected a seq` };
  return Number(raw);
}

/** `text` cut to `max` characters, marked when cut (tool arguments and results in tool cards). */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The instance budget as every client shows it: `ok`, or what a turn meets now that a window is spent. */
export type BudgetState = 'ok' | 'waiting' | 'degraded' | 'refusing';

/** The tactic's face once a window is spent (reference §10.2 "Tactic mapping"). */
const SPENT: Record<string, BudgetState> = {
  wait: 'waiting',
  slow: 'waiting',
  degrade: 'degraded',
  refuse: 'refusing',
  fail: 'refusing',
};

/** A counter at or past its cap (a null cap never is). */
const atCap = (used: unknown, cap: unknown) => typeof cap === 'number' && typeof used === 'number' && used >= cap;

/**
 * Classifies the operator status's `budget` (BudgetLedger.instanceSummary): null without an instance budget; a
 * spent lifetime refuses whatever the tactic; a spent window (tokens or requests at the cap) shows the tactic.
 */
export function budgetStateOf(summary: unknown): BudgetState | null {
  if (typeof summary !== 'object' || summary === null) return null;
  const s = summary as { windows?: unknown; lifetime_tokens?: unknown; max_lifetime_tokens?: unknown };
  if (atCap(s.lifetime_tokens, s.max_lifetime_tokens)) return 'refusing';
  const windows = Array.isArray(s.windows) ? (s.windows as Array<Record<string, unknown>>) : [];
  const spent = windows.some((w) => atCap(w['tokens'], w['max_tokens']) || atCap(w['requests'], w['max_requests']));
  if (!spent) return 'ok';
  return SPENT[String((summary as Record<string, unknown>)['on_exhausted'])] ?? 'waiting';
}

/** The longest wait before the budget's state is looked at again (a week window resets further off). */
const RECHECK_MAX_MS = 3_600_000;

/**
 * When the instance budget's state may change with no turn at all (a spent window resets): the ms to wait until
 * the earliest reset of a spent window, capped at an hour; null while nothing is spent, or the lifetime is (no
 * reset ends that).
 */
export function budgetRecheckIn(summary: unknown, now: number): number | null {
  const state = budgetStateOf(summary);
  if (state === null || state === 'ok') return null;
  const s = summary as { windows?: unknown; lifetime_tokens?: unknown; max_lifetime_tokens?: unknown };
  if (atCap(s.lifetime_tokens, s.max_lifetime_tokens)) return null;
  const windows = Array.isArray(s.windows) ? (s.windows as Array<Record<string, unknown>>) : [];
  const resets = windows
    .filter((w) => atCap(w['tokens'], w['max_tokens']) || atCap(w['requests'], w['max_requests']))
    .map((w) => Date.parse(String(w['resets'])))
    .filter((at) => Number.isFinite(at));
  if (resets.length === 0) return null;
  return Math.min(Math.max(Math.min(...resets) - now, 0), RECHECK_MAX_MS);
}
