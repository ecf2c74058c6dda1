// ListTasks page tokens (issue 13 item 9): the last task of a page as an opaque token, and back. The token is
// bound to the caller and the query it paged (a signature over both), so one that another caller, another
// filter or another process made is refused. Pure: the signing function (an HMAC with a per-process key) is given.
import type { TaskCursor } from '../domain/task.js';

/** Signs text (e.g. HMAC-SHA256, base64url); the same text always gives the same signature within a process. */
export type Sign = (text: string) => string;

/** What a token is bound to: the caller and the filters of the listing it pages. */
export interface PageBinding {
  principal: string;
  contextId?: string;
  status?: string;
}

/** The token of the page after `last`: base64url of its id, a dot, the signature over id and binding. */
export function encodePageToken(last: TaskCursor, binding: PageBinding, sign: Sign): string {
  const id = Buffer.from(last.id, 'utf8').toString('base64url');
  return `${id}.${sign(signed(last.id, binding))}`;
}

/** The place a token names, or null when it is not one `encodePageToken` made for this binding and key. */
export function decodePageToken(token: string, binding: PageBinding, sign: Sign): TaskCursor | null {
  const [encoded, signature, ...rest] = token.split('.');
  if (encoded === undefined || signature === undefined || rest.length > 0 || encoded === '') return null;
  const id = Buffer.from(encoded, 'base64url').toString('utf8');
  if (Buffer.from(id, 'utf8').toString('base64url') !== encoded) return null;
  return sameText(sign(signed(id, binding)), signature) ? { id } : null;
}

function signed(id: string, binding: PageBinding): string {
  return JSON.stringify([id, binding.principal, binding.contextId ?? null, binding.status ?? null]);
}

/** Compares in time independent of where the texts differ (a signature must not be guessable byte by byte). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
