// message.send, status and ask_human: the tools that reach beyond the turn (another conversation, the runtime,
// a person). Each uses a host capability; when the supervisor provides none, the tool says it is not available.
import { describeError } from '../../errors.js';
import {
  type HumanQuestion,
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
  toolDefer,
  toolError,
  toolOk,
  toolUnavailable,
} from '../toolOutcome.js';
import { checkSchema } from '../validation.js';
import { type Args, durationMs } from './handler.js';

/** ask_human's question when the model gives a blank one, its byte cap, and its default timeout. */
const DEFAULT_HUMAN_QUESTION = 'The agent needs your input.';
const MAX_QUESTION_BYTES = 2_000;
const ASK_HUMAN_DEFAULT_TIMEOUT = '24h';

/** Delivers `text` to root, a new conversation or a conversation id, one hop deeper than the caller. */
export function messageSend(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const deliver = host.port?.('deliver') ?? null;
  if (deliver === null) return toolUnavailable('message.send');
  const to = (args['to'] as string | undefined) ?? 'root';
  const text = args['text'] as string;
  if (text.trim() === '') return toolError('message.send: text must not be empty');
  if (to === caller.conversation || (to === 'root' && caller.kind === 'root')) {
    return toolError(`message.send cannot deliver into its own conversation "${caller.conversation}"`);
  }
  const depth = caller.depth + 1;
  if (depth > host.maxMessageDepth) {
    return toolError(
      `message.send refused: hop depth ${depth} would exceed limits.max_message_depth (${host.maxMessageDepth})`,
    );
  }
  const delivered = deliver({ to, text, depth, caller }).then(
    (receipt): ToolResult =>
      receipt.ok
        ? { result: { delivered: true, conversation: receipt.conversation, depth: receipt.depth }, is_error: false }
        : { result: `message.send: ${receipt.error}`, is_error: true },
    (err: unknown): ToolResult => ({ result: `message.send: ${describeError(err)}`, is_error: true }),
  );
  return toolDefer(delivered);
}

/** The runtime status the supervisor reports for `caller`. */
export function status(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (host.status === undefined) return toolUnavailable('status');
  return toolOk(host.status(caller));
}

/** `text` cut to at most `max` UTF-8 bytes on a character boundary, with "…" appended when cut. */
export function cutBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${new TextDecoder().decode(bytes.subarray(0, end))}…`;
}

/** The question as a person sees it: trimmed, a default when blank, cut at 2000 bytes (reference §13). */
export function humanQuestionText(raw: unknown): string {
  const trimmed = typeof raw === 'string' ? raw.trim() : '';
  return cutBytes(trimmed === '' ? DEFAULT_HUMAN_QUESTION : trimmed, MAX_QUESTION_BYTES);
}

/** Asks a person; with nobody reachable, fails now or waits out the timeout (agent.ask_human_fallback). */
export function askHuman(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const schema = args['schema'] as Record<string, unknown> | undefined;
  const valid = schema === undefined ? null : checkSchema(schema);
  if (valid !== null && !valid.ok) {
    return toolError(`invalid arguments for ask_human: /schema is not a JSON Schema: ${valid.explain}`);
  }
  const timeoutMs = durationMs((args['timeout'] as string | number | undefined) ?? ASK_HUMAN_DEFAULT_TIMEOUT);
  const start = host.now();
  if (host.humanChannel) {
    if (host.askHuman === undefined) return toolUnavailable('ask_human');
    const question: HumanQuestion = {
      question: humanQuestionText(args['question']),
      timeoutAt: start + timeoutMs,
      caller,
    };
    if (schema !== undefined) question.schema = schema;
    return toolDefer(host.askHuman(question));
  }
  if (host.askHumanFallback === 'fail') {
    return toolError('ask_human: no person is reachable (agent.ask_human_fallback is "fail")');
  }
  return {
    kind: 'park',
    wakeAt: start + timeoutMs,
    complete: () => ({ result: { reply: null, timed_out: true }, is_error: false }),
  };
}
