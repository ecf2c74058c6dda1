// A worker double that ignores redaction: it takes its spawn frame, says `ready`, writes a memory entry through a
// `memory.set` tool request, then ends its turn `failed` with an error and a reply — all quoting every value of the
// spawn frame's `redact` list verbatim. It shows what the supervisor was told to redact, and lets a test check the
// supervisor's own redaction of what comes back (tool arguments included, not only the fold).
import { encodeFrame, FrameDecoder } from '../../src/protocol/frameCodec.js';
import type { UpFrame } from '../../src/protocol/frames.js';

const decoder = new FrameDecoder();
const send = (frame: UpFrame): boolean => process.stdout.write(encodeFrame(frame));
let leaked = '';

function finish(): void {
  const usage = { input_tokens: 0, output_tokens: 0 };
  const messages = [{ role: 'assistant' as const, text: leaked, tool_calls: [], ts: Date.now() }];
  const turn = { status: 'failed' as const, messages, text: leaked, usage, rounds: 1, tool_calls: 0, error: leaked };
  send({ type: 'usage', ...usage });
  send({ type: 'turn_done', turn });
  process.stdout.end(() => process.exit(1));
}

process.stdin.on('data', (chunk: Buffer) => {
  for (const raw of decoder.push(chunk)) {
    const frame = raw as { type: string; seq?: number; redact?: string[] };
    if (frame.type === 'ping') send({ type: 'pong', seq: frame.seq ?? 0 });
    if (frame.type === 'tool_result') finish();
    if (frame.type !== 'spawn') continue;
    leaked = `leaked: ${(frame.redact ?? []).join(' ')}`;
    send({ type: 'ready' });
    send({ type: 'tool_request', id: 1, name: 'memory.set', args: { key: 'leak', value: { note: leaked } } });
  }
});
process.stdin.on('end', () => process.exit(1));
