// Length-prefixed JSON framing: 4-byte big-endian length, then UTF-8 JSON (reference §1.3).
// Payloads may contain newlines; a declared length over the limit is an error, never a huge allocation.
import { MAX_FRAME_BYTES } from './frames.js';

/** Encodes one frame as length prefix + JSON bytes. */
export function encodeFrame(frame: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(frame), 'utf8');
  if (body.length > MAX_FRAME_BYTES) {
    throw new FrameError(`frame of ${body.length} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
  }
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export class FrameError extends Error {
  override name = 'FrameError';
}

/** Accumulates chunks from a stream and yields whole decoded frames. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxBytes: number = MAX_FRAME_BYTES) {}

  /** Adds a chunk; returns every complete frame now available. Throws FrameError on a bad frame. */
  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: unknown[] = [];
    while (this.buffered >= 4) {
      const len = this.declaredLength();
      if (len > this.maxBytes) throw new FrameError(`declared frame length ${len} exceeds ${this.maxBytes}`);
      // Join the chunks only once the whole frame is here: a large frame arriving in pieces is copied once.
      if (this.buffered < 4 + len) break;
      const buf = this.flatten();
      const body = buf.subarray(4, 4 + len).toString('utf8');
      this.chunks = buf.length > 4 + len ? [buf.subarray(4 + len)] : [];
      this.buffered = buf.length - 4 - len;
      try {
        frames.push(JSON.parse(body));
      } catch {
        throw new FrameError(`frame is not valid JSON (${len} bytes)`);
      }
    }
    return frames;
  }

  private declaredLength(): number {
    const first = this.chunks[0] as Buffer;
    if (first.length >= 4) return first.readUInt32BE(0);
    return this.flatten().readUInt32BE(0);
  }

  /** True when a partial frame is buffered (EOF now would cut a frame). */
  get pending(): boolean {
    return this.buffered > 0;
  }

  private flatten(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] as Buffer;
  }
}
