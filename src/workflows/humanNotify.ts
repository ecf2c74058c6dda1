// A `human` step's `reply_uri` (producers reference §2.4 lists the field; agentd parses it and never reads it): the
// URL is told of the question and of its end by a POST, as an A2A push notification tells a client of a task's
// state, so a person's pager, chat bridge or inbox can show it. Each POST carries `Idempotency-Key: <task>/<state>`:
// a restart that asks again sends the same key. Thin I/O: the caller decides what a refusal means.
import type { TaskRecord } from '../domain/task.js';

const NOTIFY_TIMEOUT_MS = 10_000;

/** POSTs `body` to `uri`; resolves null when it was taken (2xx), else a short reason. */
export async function notifyReplyUri(
  uri: string,
  task: Pick<TaskRecord, 'id' | 'context_id'>,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<string | null> {
  const state = String(body['state']);
  const limit = AbortSignal.timeout(NOTIFY_TIMEOUT_MS);
  try {
    const response = await fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `${task.id}/${state}` },
      body: JSON.stringify({ task: task.id, context: task.context_id, ...body }),
      signal: signal ? AbortSignal.any([signal, limit]) : limit,
      redirect: 'manual',
    });
    await response.body?.cancel();
    return response.status >= 200 && response.status <= 299 ? null : `http status ${response.status}`;
  } catch (err) {
    return limit.aborted ? 'timed out' : ((err as Error).message ?? String(err));
  }
}
