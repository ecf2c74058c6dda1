// How a subagent's answer comes back (reference §1.9): the distilled result (8 000-byte cap with the truncation
// marker, JSON text parsed), the answer waiters get, and the wake note's text. Pure.
import type { SubagentRecord } from '../domain/subagent.js';
import { chargedTokens } from '../protocol/usage.js';
import type { ToolResult } from '../tools/toolOutcome.js';

/** A string result longer than this many UTF-8 bytes is cut. */
export const RESULT_CAP_BYTES = 8_000;
export const TRUNCATION_MARKER = '… [truncated]';
/** How much of a result a wake note quotes. */
export const NOTE_CHARS = 400;

/** Cuts a long string at a character boundary; parses a short one that is JSON; passes anything else. */
export function distill(result: unknown): unknown {
  if (typeof result !== 'string') return result;
  if (Buffer.byteLength(result, 'utf8') > RESULT_CAP_BYTES) {
    let bytes = 0;
    let cut = '';
    for (const ch of result) {
      bytes += Buffer.byteLength(ch, 'utf8');
      if (bytes > RESULT_CAP_BYTES) break;
      cut += ch;
    }
    return `${cut}${TRUNCATION_MARKER}`;
  }
  try {
    return JSON.parse(result);
  } catch {
    return result;
  }
}

/** What `subagent.run` (sync), `subagent.await` and a respawned waiter answer: always a success value. */
export function answerOf(record: SubagentRecord): { handle: string; status: string; result: unknown; error: unknown } {
  return { handle: record.handle, status: record.status, result: record.result ?? null, error: record.error };
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
  return { handle: r.handle, status: r.status, mode: r.mode, result: r.result ?? null, error: r.error, tokens };
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
