// A daemon-shaped run (a config with `a2a.listen`): the runtime serves until a stop is asked for (SIGTERM through
// run.ts, or the operator's `drain` command), then drains, stops and exits 0.
import type { Runtime } from '../runtime/startRuntime.js';
import { EXIT } from './exitCodes.js';
import type { CliResult } from './run.js';

export async function runDaemon(runtime: Runtime): Promise<CliResult> {
  await runtime.stopRequested;
  await runtime.stop();
  return { code: EXIT.ok };
}
