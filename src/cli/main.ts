#!/usr/bin/env node
// The `agentd` binary: runs the CLI, writes the reply to stdout, and is the only place the process exits. It caps
// its young generation before anything else loads (runtime/leanHeap.ts): module loading is what grows it.
import { setFlagsFromString } from 'node:v8';
import { leanOwnHeapFlag } from '../runtime/leanHeap.js';

const leanFlag = leanOwnHeapFlag(process.env, process.execArgv);
if (leanFlag !== null) setFlagsFromString(leanFlag);

const [{ redact }, { EXIT }, { runCli }] = await Promise.all([
  import('../obs/log.js'),
  import('./exitCodes.js'),
  import('./run.js'),
]);

function exitAfterFlush(code: number, stdout?: string): void {
  if (stdout === undefined || stdout === '') {
    process.exit(code);
  }
  const text = stdout.endsWith('\n') ? stdout : `${stdout}\n`;
  process.stdout.write(text, () => process.exit(code));
}

runCli(process.argv).then(
  (result) => exitAfterFlush(result.code, result.stdout),
  (err: unknown) => {
    process.stderr.write(`agentd: internal error: ${redact(err instanceof Error ? err.message : String(err))}\n`);
    process.exit(EXIT.generic);
  },
);
