// Reading the scripted model's request log: which requests were preflights, which were turns, what they sent.
import type { RecordedRequest } from '../../doubles/scriptedModel.js';

type Body = { model?: string; messages?: Array<{ role: string; content: unknown }> };

/** The system prompt an OpenAI-wire request sent (its first message, when it is a system message). */
export function systemOf(request: RecordedRequest | undefined): string {
  const first = (request?.body as Body | undefined)?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
}

export function modelOf(request: RecordedRequest | undefined): string | undefined {
  return (request?.body as Body | undefined)?.model;
}

export const isPreflight = (r: RecordedRequest): boolean => systemOf(r).startsWith('PREFLIGHT.');

/** The requests turns made (not preflights, not other think children). */
export function turnRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => !isPreflight(r));
}
