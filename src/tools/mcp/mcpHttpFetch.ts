// Streamable HTTP: a request answered over an SSE stream that breaks before its response (the server died) waits
// forever in SDK 1.x, which only resumes streams that carry event ids. This fetch wrapper answers such a request
// with a JSON-RPC "connection closed" error instead, so the call ends at once as a transport error.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** ErrorCode.ConnectionClosed of the SDK. */
const CONNECTION_CLOSED = -32000;

type RpcId = string | number;

/** Hands a JSON-RPC message to the client as if the server had sent it. */
export type DeliverMessage = (message: { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string } }) => void;

/** Ids of the JSON-RPC requests in a POST body (a single message or a batch). */
function requestIds(init: RequestInit | undefined): RpcId[] {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(init.body);
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const ids: RpcId[] = [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || !('method' in m)) continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/** Watches SSE text for the responses to `ids`, and for event ids (a stream the SDK would resume). */
class SseScan {
  readonly answered = new Set<RpcId>();
  resumable = false;
  private buffer = '';
  private data: string[] = [];

  constructor(private readonly ids: readonly RpcId[]) {}

  push(text: string): void {
    this.buffer += text;
    const lines = this.buffer.split(/\r?\n/);
    this.buffer = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  /** Ids still waiting for an answer. */
  unanswered(): RpcId[] {
    return this.ids.filter((id) => !this.answered.has(id));
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith('id:') && line.slice(3).trim() !== '') this.resumable = true;
    if (line.startsWith('data:')) this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }

  private dispatch(): void {
    const data = this.data.join('\n');
    this.data = [];
    if (data === '') return;
    try {
      const message = JSON.parse(data) as { id?: RpcId; result?: unknown; error?: unknown };
      if (message.id !== undefined && ('result' in message || 'error' in message)) this.answered.add(message.id);
    } catch {
      // Not JSON: the SDK reports it; nothing to track.
    }
  }
}

function watchStream(
  body: ReadableStream<Uint8Array>,
  ids: RpcId[],
  deliver: DeliverMessage,
  signal: AbortSignal | null | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const scan = new SseScan(ids);
  const decoder = new TextDecoder();
  const settle = (why: string): void => {
    if (scan.resumable || signal?.aborted) return;
    for (const id of scan.unanswered()) {
      deliver({ jsonrpc: '2.0', id, error: { code: CONNECTION_CLOSED, message: `Connection closed: ${why}` } });
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          settle('the server ended the response stream without an answer');
          controller.close();
          return;
        }
        scan.push(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (err) {
        settle('the response stream broke');
        controller.error(err);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** A fetch for StreamableHTTPClientTransport that answers requests whose SSE response stream dies unanswered. */
export function fetchAnsweringBrokenStreams(deliver: DeliverMessage, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const ids = requestIds(init);
    const type = response.headers.get('content-type') ?? '';
    if (ids.length === 0 || !response.body || !type.includes('text/event-stream')) return response;
    const { status, statusText, headers } = response;
    return new Response(watchStream(response.body, ids, deliver, init?.signal), { status, statusText, headers });
  };
}
