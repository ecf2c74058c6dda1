// The worker's end of the frame pipe: decodes frames from stdin, writes frames to stdout, mints request ids and
// matches replies to them (reference §1.3). It decides nothing about the turn.
import type { Readable, Writable } from 'node:stream';
import { describeError } from '../errors.js';
import { redactDeep } from '../obs/redactor.js';
import { encodeFrame, FrameDecoder } from '../protocol/frameCodec.js';
import type { DownFrame, UpFrame } from '../protocol/frames.js';

export interface ChannelEvents {
  /** Every decoded frame, in order (validated by the receiver). */
  onFrame(frame: unknown): void;
  /** The supervisor's end is gone (`eof`: EOF or a pipe error) or sent an undecodable stream (`garbage`). */
  onEnd(reason: string, kind: 'eof' | 'garbage'): void;
}

type Reply = Extract<DownFrame, { type: 'tool_result' | 'budget_grant' }>;

export class ControlChannel {
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<number, (reply: Reply | null) => void>();
  private nextId = 1;
  private ended = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly events: ChannelEvents,
  ) {}

  /** Starts reading; frames and the end arrive through the events. */
  start(): void {
    this.input.on('data', (chunk: Buffer) => this.onData(chunk));
    this.input.on('end', () => this.end('stdin ended'));
    this.input.on('close', () => this.end('stdin closed'));
    this.input.on('error', (err) => this.end(`stdin error: ${describeError(err)}`));
    this.output.on('error', (err) => this.end(`stdout error: ${describeError(err)}`));
  }

  /** Writes one frame, every registered secret redacted (it leaves the process); resolves once handed to the OS. */
  send(frame: UpFrame): Promise<void> {
    return new Promise((resolve) => {
      this.output.write(encodeFrame(redactDeep(frame)), () => resolve());
    });
  }

  /** Sends a request built with a fresh id and waits for the reply with that id; null when the channel ends. */
  request(build: (id: number) => UpFrame): Promise<Reply | null> {
    if (this.ended) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      void this.send(build(id));
    });
  }

  /** Hands a reply to its waiting request; an unmatched id is ignored. */
  resolve(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    waiter(reply);
  }

  /** Stops reading so the process can exit; pending requests get no answer. */
  close(): void {
    this.ended = true;
    this.input.removeAllListeners('data');
    this.input.destroy();
  }

  private onData(chunk: Buffer): void {
    let frames: unknown[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.end(`bad frame: ${describeError(err)}`, 'garbage');
      return;
    }
    for (const frame of frames) this.events.onFrame(frame);
  }

  private end(reason: string, kind: 'eof' | 'garbage' = 'eof'): void {
    if (this.ended) return;
    this.ended = true;
    for (const waiter of this.pending.values()) waiter(null);
    this.pending.clear();
    this.events.onEnd(reason, kind);
  }
}
