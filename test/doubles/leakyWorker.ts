// A worker double that ignores redaction: it takes its spawn frame, says `ready`, then ends its turn `failed` with an
// error and a reply that quote every value of the spawn frame's `redact` list verbatim. It shows what the supervisor
// was told to redact, and lets a test check the supervisor's own redaction of what comes back.
import { encodeFrame, FrameDecoder } from '../../src/protocol/frameCodec.js';
import type { UpFrame } from '../../src/protocol/frames.js';

const decoder = new FrameDecoder();
const send = (frame: UpFrame): boolean => process.stdout.write(encodeFrame(frame));

process.stdin.on('data', (chunk: Buffer) => {
  for (const raw of decoder.push(chunk)) {
    const frame = raw as { type: string; seq?: number; redact?: string[] };
    if (frame.type === 'ping') send({ type: 'pong', seq: frame.seq ?? 0 });
    if (frame.type !== 'spawn') continue;
    const leaked = `leaked: ${(frame.redact ?? []).join(' ')}`;
    send({ type: 'ready' });
    const usage = { input_tokens: 0, output_tokens: 0 };
    const messages = [{ role: 'assistant' as const, text: leaked, tool_calls: [], ts: Date.now() }];
    const turn = { status: 'failed' as const, messages, text: leaked, usage, rounds: 1, tool_calls: 0, error: leaked };
    send({ type: 'usage', ...usage });
    send({ type: 'turn_done', turn });
    process.stdout.end(() => process.exit(1));
  }
});
process.stdin.on('end', () => process.exit(1));
