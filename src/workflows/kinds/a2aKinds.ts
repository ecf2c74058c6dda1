// `a2a.send` / `a2a.delegate` (producers reference §2.8): a message to a peer named in `a2a.peers` through the
// official A2A client (the `peers` port). The A2A messageId is the step key (or `idempotency.value`), never the
// attempt: a retried or replayed step sends the same message, which the peer deduplicates, so it acts once.
import {
  callLimitMs,
  done,
  failed,
  type NodeKind,
  type PeerAnswer,
  pinnedKey,
  type StepContext,
  type StepResult,
} from '../nodeKind.js';

const SEND_TIMEOUT_MS = 30_000;
const DELEGATE_TIMEOUT_MS = 120_000;

const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `parts` as A2A parts: a string is one text part; `{text}` / `{data}` objects as given. Null: malformed. */
export function partsOf(value: unknown): Record<string, unknown>[] | null {
  if (typeof value === 'string') return [{ text: value }];
  const list = Array.isArray(value) ? value : [value];
  const ok = list.every(
    (p) => isObject(p) && Object.keys(p).length === 1 && (typeof p['text'] === 'string' || 'data' in p),
  );
  return ok && list.length > 0 ? (list as Record<string, unknown>[]) : null;
}

function checkIdempotency(kind: string, fields: Readonly<Record<string, unknown>>): string[] {
  const idem = fields['idempotency'];
  if (idem === undefined || idem === true) return [];
  return isObject(idem) && typeof idem['value'] === 'string' && Object.keys(idem).length === 1
    ? []
    : [`${kind}.idempotency must be true or {value}`];
}

function checkPeer(kind: string, field: string, fields: Readonly<Record<string, unknown>>): string[] {
  const v = fields[field];
  return typeof v === 'string' && v !== '' ? [] : [`${kind}.${field} must name a peer of a2a.peers`];
}

function checkSend(fields: Readonly<Record<string, unknown>>): string[] {
  const problems = [...checkPeer('a2a.send', 'to', fields), ...checkIdempotency('a2a.send', fields)];
  const parts = fields['parts'];
  if (parts === undefined) problems.push('a2a.send needs parts (a text, or a list of {text} / {data} parts)');
  else if (!deferred(parts) && partsOf(parts) === null)
    problems.push('a2a.send.parts must be a text, or a list of {text} / {data} parts');
  return problems;
}

function checkDelegate(fields: Readonly<Record<string, unknown>>): string[] {
  return [...checkPeer('a2a.delegate', 'peer', fields), ...checkIdempotency('a2a.delegate', fields)];
}

function outputOf(peer: string, messageId: string, answer: Extract<PeerAnswer, { ok: true }>) {
  const { task, context, state, text, data } = answer;
  return { peer, message_id: messageId, task, context, state, text, data };
}

function failure(answer: Extract<PeerAnswer, { ok: false }>, kind: string): StepResult {
  return { type: 'failed', error: `${kind}: ${answer.error}`, ...(answer.timeout ? { timeout: true } : {}) };
}

async function runSend(ctx: StepContext): Promise<StepResult> {
  const peers = ctx.ports.peers;
  if (!peers) return failed('a2a.send: no A2A peers in this process');
  const parts = partsOf(ctx.spec['parts']);
  if (parts === null) return failed('a2a.send: parts must be a text, or a list of {text} / {data} parts');
  const peer = String(ctx.spec['to']);
  const messageId = pinnedKey(ctx);
  const context = ctx.spec['context'];
  const answer = await peers.send({
    peer,
    parts,
    messageId,
    contextId: typeof context === 'string' && context !== '' ? context : null,
    untilDone: false,
    timeoutMs: callLimitMs(ctx, SEND_TIMEOUT_MS),
    signal: ctx.signal,
    run: ctx.run.id,
    step: ctx.step.id,
  });
  return answer.ok ? done(outputOf(peer, messageId, answer)) : failure(answer, 'a2a.send');
}

async function runDelegate(ctx: StepContext): Promise<StepResult> {
  const peers = ctx.ports.peers;
  if (!peers) return failed('a2a.delegate: no A2A peers in this process');
  const peer = String(ctx.spec['peer']);
  const messageId = pinnedKey(ctx);
  const objective = String(ctx.spec['objective'] ?? '');
  const contract = ctx.spec['output_contract'];
  const text =
    contract === undefined
      ? objective
      : `${objective}\n\nOutput contract:\n${typeof contract === 'string' ? contract : JSON.stringify(contract)}`;
  const answer = await peers.send({
    peer,
    parts: [{ text }],
    messageId,
    contextId: null,
    untilDone: true,
    timeoutMs: callLimitMs(ctx, DELEGATE_TIMEOUT_MS),
    signal: ctx.signal,
    run: ctx.run.id,
    step: ctx.step.id,
  });
  if (!answer.ok) return failure(answer, 'a2a.delegate');
  if (answer.state !== 'completed' && answer.state !== 'message')
    return failed(
      `a2a.delegate: peer "${peer}" task ${answer.task} ${answer.state}${answer.text ? `: ${answer.text}` : ''}`,
    );
  return done(outputOf(peer, messageId, answer));
}

const IDEMPOTENCY_DOC =
  '`true` (default: the step key sha256("<run>.<step>")[0:32]) or `{value}`: the A2A messageId, the same for every attempt and after a restart.';

export const A2A_KINDS: readonly NodeKind[] = [
  {
    name: 'a2a.send',
    category: 'integration',
    implemented: true,
    effect: true,
    doc: "Sends one message to peer `to` (a name in `a2a.peers`) through the official A2A client and answers with its first response, not waiting for the peer's task to end: output `{peer, message_id, task, context, state, text, data}` (`state` as `submitted`, `working`, `completed`, … or `message`). The messageId is the step key, so a retry or a replay after a restart sends the same message (an agentd peer answers with the task it made). A peer whose host is a loopback, private or link-local address is refused unless the peer sets `allow_private`. Time limit: `timeout` (30 s), never past the run deadline. Logs `a2a.send`.",
    fields: {
      to: { required: true, doc: 'The peer name (`a2a.peers.<name>`; templates).' },
      parts: { doc: 'Required: a text, or a list of `{text}` / `{data}` parts (templates or `CEL:`).' },
      context: { doc: 'The A2A contextId to continue (e.g. `{{steps.first.output.context}}`).' },
      timeout: { doc: 'Seconds or a duration (default 30 s).' },
      idempotency: { doc: IDEMPOTENCY_DOC },
    },
    check: checkSend,
    run: runSend,
  },
  {
    name: 'a2a.delegate',
    category: 'integration',
    implemented: true,
    effect: true,
    doc: 'Gives peer `peer` an objective (and `output_contract`, appended as `Output contract:`) and waits for its task to end, reading it again every 250 ms: `completed` ⇒ output `{peer, message_id, task, context, state, text, data}` (text = the artifacts\' text, data = their first data part); `failed`, `canceled`, `rejected` ⇒ the step fails `a2a.delegate: peer "<p>" task <id> <state>: <text>`; still running at `timeout` (120 s, never past the run deadline) ⇒ a `timeout` (a retry finds the same task: the messageId is the step key). Private addresses refused unless the peer sets `allow_private`. Logs `a2a.delegate`.',
    fields: {
      peer: { required: true, doc: 'The peer name (`a2a.peers.<name>`; templates).' },
      objective: { required: true, doc: 'What the peer is asked to do (templates).' },
      output_contract: { doc: 'What the answer must hold (text, or JSON written as text).' },
      timeout: { doc: 'Seconds or a duration (default 120 s).' },
      idempotency: { doc: IDEMPOTENCY_DOC },
    },
    check: checkDelegate,
    run: runDelegate,
  },
];
