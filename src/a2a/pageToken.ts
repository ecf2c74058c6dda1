// ListTasks page tokens (issue 13 item 9): the last task of a page as an opaque token, and back. Pure: a token
// that does not decode to a place in the listing is null, and the caller answers -32602.
import type { TaskCursor } from '../domain/task.js';

/** The token of the page after `last` (base64url JSON of its `updated` and id). */
export function encodePageToken(last: TaskCursor): string {
  return Buffer.from(JSON.stringify([last.updated, last.id]), 'utf8').toString('base64url');
}

/** The place a token names, or null when it is not one `encodePageToken` made. */
export function decodePageToken(token: string): TaskCursor | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [updated, id] = value as [unknown, unknown];
  return Number.isSafeInteger(updated) && typeof id === 'string' ? { updated: updated as number, id } : null;
}
