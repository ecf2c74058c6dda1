// `agentd tui`: not built yet in this branch; the subcommand answers with a clear error.
import { EXIT } from '../cli/exitCodes.js';
import type { CliResult } from '../cli/run.js';

export async function runTui(
  _args: string[],
  _o: Record<string, unknown>,
  _env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  process.stderr.write('agentd tui: not available in this build\n');
  return { code: EXIT.generic };
}
