// A worker double for liveness tests: speaks the frame protocol, answers every ping, takes its spawn frame, says
// `ready` and a `usage` report (7 in, 3 out), then never progresses. `wedged`: its pongs say it is between calls (a wedged loop); `busy`: its
// pongs say it is inside a model call (a long call, not a wedge). It ignores cancel; only a kill ends it.
import { encodeFrame, FrameDecoder } from '../../src/protocol/frameCodec.js';
import type { UpFrame } from '../../src/protocol/frames.js';

const mode = process.argv[2] === 'busy' ? 'busy' : 'wedged';
const decoder = new FrameDecoder();
let spawned = false;

const send = (frame: UpFrame): boolean => process.stdout.write(encodeFrame(frame));

process.stdin.on('data', (chunk: Buffer) => {
  for (const raw of decoder.push(chunk)) {
    const frame = raw as { type: string; seq?: number };
    if (frame.type === 'ping') {
      const busy = spawned && mode === 'busy';
      send(busy ? { type: 'pong', seq: frame.seq ?? 0, busy: 'model' } : { type: 'pong', seq: frame.seq ?? 0 });
    } else if (frame.type === 'spawn' && !spawned) {
      spawned = true;
      send({ type: 'ready' });
      send({ type: 'usage', input_tokens: 7, output_tokens: 3 });
    }
  }
});
// Like the real worker: never outlive the supervisor.
process.stdin.on('end', () => process.exit(1));
