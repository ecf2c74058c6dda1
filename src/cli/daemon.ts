// A daemon-shaped run (a config with `a2a.listen`): the runtime serves until a stop is asked for (SIGTERM through
// run.ts, the operator's `drain` command, or a turn's `finish {exit: true}`), then drains, stops and exits: 0, or
// the code the finish status maps to (reference §14.2 step 7).
import { FinishExit } from '../runtime/finishExit.js';
import type { Runtime } from '../runtime/startRuntime.js';
import { EXIT, exitCodeForFinish } from './exitCodes.js';
import type { CliResult } from './run.js';

export async function runDaemon(runtime: Runtime): Promise<CliResult> {
  await runtime.stopRequested;
  await runtime.stop();
  const asked = runtime.producers.find((p): p is FinishExit => p instanceof FinishExit)?.exitAsked;
  return { code: asked ? exitCodeForFinish(asked.status) : EXIT.ok };
}
