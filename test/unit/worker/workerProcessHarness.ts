// A real worker process for tests: spawn frame in, every UP frame recorded, waits with hard timeouts.
// Under tsx the worker runs from source; compiled, the test and the worker both live under dist/.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeFrame, FrameDecoder } from '../../../src/protocol/frameCodec.js';
import type { SpawnPayload, UpFrame } from '../../../src/protocol/frames.js';

const compiled = import.meta.url.endsWith('.js');
const root = fileURLToPath(new URL('../../../', import.meta.url));
const entry = fileURLToPath(new URL(`../../../src/worker/main.${compiled ? 'js' : 'ts'}`, import.meta.url));

export interface Worker {
  child: ChildProcessWithoutNullStreams;
  frames: UpFrame[];
  stderr: () => string;
  waitFor(pred: (f: UpFrame) => boolean, ms?: number): Promise<UpFrame>;
  exit(ms?: number): Promise<number | null>;
}

/** Spawns a worker; nothing is written to its stdin yet. */
export function startWorker(): Worker {
  const args = compiled ? [entry] : ['--import', 'tsx', entry];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const frames: UpFrame[] = [];
  const waiters: Array<() => void> = [];
  const decoder = new FrameDecoder();
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout.on('data', (c: Buffer) => {
    for (const f of decoder.push(c)) frames.push(f as UpFrame);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (pred: (f: UpFrame) => boolean, ms = 15_000) =>
    new Promise<UpFrame>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${ms} ms; stderr: ${stderr}`)), ms);
      const check = (): void => {
        const found = frames.find(pred);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  const exit = (ms = 15_000) =>
    Promise.race([
      exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`worker did not exit; stderr: ${stderr}`)), ms).unref(),
      ),
    ]);
  return { child, frames, stderr: () => stderr, waitFor, exit };
}

/** The encoded first frame for `payload`. */
export const spawnFrame = (payload: SpawnPayload) => encodeFrame({ type: 'spawn', ...payload });
