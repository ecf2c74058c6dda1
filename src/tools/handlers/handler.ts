// What every internal tool body shares: its signature and how a duration argument reads.
// The bodies live beside this file; the name → body table is ../internalHandlers.ts.
import { parseDuration } from '../../config/duration.js';
import type { InternalToolHost, ToolCaller, ToolOutcome } from '../toolOutcome.js';

export type Args = Record<string, unknown>;

/** A tool body: arguments arrive validated against the input schema; a thrown error becomes an error result. */
export type Handler = (args: Args, caller: ToolCaller, host: InternalToolHost) => ToolOutcome;

/** A duration argument in ms: a number is seconds; a string was checked against DURATION_PATTERN. */
export function durationMs(value: string | number): number {
  return typeof value === 'number' ? Math.round(value * 1000) : parseDuration(value);
}

/** `value` as compact JSON text (`null` for a value JSON cannot carry). */
export function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
