// How a subagent's answer comes back (reference §1.9): the distilled result (8 000-byte cap with the truncation
// marker, JSON text parsed; a cut text is kept whole and read in pages, §5 item 24), the answer waiters get, and
// the wake note's text. Pure.
import type { SubagentRecord } from '../domain/subagent.js';
import { chargedTokens } from '../protocol/usage.js';
import type { ToolResult } from '../tools/toolOutcome.js';

/** A result longer than this many UTF-8 bytes (a structured one: its JSON text) is cut. */
export const RESULT_CAP_BYTES = 8_000;
export const TRUNCATION_MARKER = '… [truncated]';
/** How much of a result a wake note quotes. */
export const NOTE_CHARS = 400;

/** A distilled result; `whole` is the full text when it was cut (stored, so it can still be read). */
export interface Distilled {
  value: unknown;
  whole: { body: string; bytes: number; shown: number } | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** A UTF-8 continuation byte (10xxxxxx) never starts a character. */
const continues = (bytes: Uint8Array, at: number): boolean => at < bytes.length && ((bytes[at] ?? 0) & 0xc0) === 0x80;

/** `end` moved back to a character boundary. */
function boundaryBefore(bytes: Uint8Array, end: number): number {
  let at = Math.min(end, bytes.length);
  while (at > 0 && continues(bytes, at)) at--;
  return at;
}

/** `text` cut to the cap at a character boundary with the marker, and the whole text beside it. */
function cutWhole(text: string, bytes: Uint8Array): Distilled {
  const shown = boundaryBefore(bytes, RESULT_CAP_BYTES);
  const cut = decoder.decode(bytes.subarray(0, shown));
  return { value: `${cut}${TRUNCATION_MARKER}`, whole: { body: text, bytes: bytes.length, shown } };
}

/**
 * Cuts a result over the cap at a character boundary (keeping it whole beside); parses a short string that is JSON.
 * A structured result is measured as its JSON text: over the cap, that text is cut and kept like a string's.
 */
export function distillWhole(result: unknown): Distilled {
  if (typeof result !== 'string') {
    const text = JSON.stringify(result);
    const bytes = text === undefined ? null : utf8(text);
    return bytes && text !== undefined && bytes.length > RESULT_CAP_BYTES
      ? cutWhole(text, bytes)
      : { value: result, whole: null };
  }
  const bytes = utf8(result);
  if (bytes.length > RESULT_CAP_BYTES) return cutWhole(result, bytes);
  try {
    return { value: JSON.parse(result), whole: null };
  } catch {
    return { value: result, whole: null };
  }
}

/** The distilled result alone (reference §1.9 step 1). */
export function distill(result: unknown): unknown {
  return distillWhole(result).value;
}

/** Where the rest of a cut result is read: its size and the offset subagent.result goes on from. */
function fullResult(record: SubagentRecord): Record<string, unknown> {
  const stored = record.stored_result;
  if (!stored) return {};
  return { full_result: { bytes: stored.bytes, run: stored.run, next_offset: stored.shown, read: 'subagent.result' } };
}

/** What `subagent.run` (sync), `subagent.await` and a respawned waiter answer: always a success value. */
export function answerOf(record: SubagentRecord): { handle: string; status: string; result: unknown; error: unknown } {
  const { handle, status, error } = record;
  return { handle, status, result: record.result ?? null, error, ...fullResult(record) };
}

/** One page of a stored whole result: `pageBytes` from `offset` (both in UTF-8 bytes, moved to char boundaries). */
export function pageOf(
  body: string,
  offset: number,
  pageBytes = RESULT_CAP_BYTES,
): { offset: number; text: string; next_offset: number | null } {
  const bytes = utf8(body);
  let start = Math.max(0, Math.min(Math.floor(offset), bytes.length));
  while (continues(bytes, start)) start++;
  const end = boundaryBefore(bytes, start + pageBytes);
  const text = decoder.decode(bytes.subarray(start, end));
  return { offset: start, text, next_offset: end < bytes.length ? end : null };
}

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length <= NOTE_CHARS ? text : `${chars.slice(0, NOTE_CHARS).join('')}…`;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** `subagent <h> <status>: <result or error, cut to 400 chars>`. */
export function resultNote(record: SubagentRecord): string {
  const text = record.result === null || record.result === undefined ? (record.error ?? 'null') : asText(record.result);
  return `subagent ${record.handle} ${record.status}: ${excerpt(text)}`;
}

/** A warm run's note: `subagent <h> finished a turn: <text>`. */
export function turnNote(handle: string, result: unknown): string {
  return `subagent ${handle} finished a turn: ${excerpt(asText(result))}`;
}

/** subagent.status's answer (reference §1.5). */
export function statusOf(r: SubagentRecord): Record<string, unknown> {
  const tokens = chargedTokens(r.tokens);
  const answer = { handle: r.handle, status: r.status, mode: r.mode, result: r.result ?? null, error: r.error };
  return { ...answer, tokens, ...fullResult(r) };
}

/** One subagent.list entry: the instruction cut to 80 characters. */
export function listEntry(r: SubagentRecord): Record<string, unknown> {
  const instruction = [...r.instruction].slice(0, 80).join('');
  return { handle: r.handle, mode: r.mode, status: r.status, instruction, created: r.created };
}

/** A spawn that failed, as the caller's tool error (reference §1.4 gate 11). */
export function spawnFailed(record: SubagentRecord): ToolResult {
  return { result: `subagent.run: spawn failed: ${(record.error ?? '').replace(/^spawn: /, '')}`, is_error: true };
}
