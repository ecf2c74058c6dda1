#!/usr/bin/env node
// The `agentd` binary: runs the CLI, writes the reply to stdout, and is the only place the process exits. It caps
// its young generation and turns V8's optimizing compiler off before anything else loads (runtime/leanHeap.ts):
// module loading is what grows the one and first runs the other.
import { setFlagsFromString } from 'node:v8';
import { leanOwnCodeFlag, leanOwnHeapFlag } from '../runtime/leanHeap.js';

for (const flag of [leanOwnHeapFlag(process.env, process.execArgv), leanOwnCodeFlag(process.env, process.execArgv)])
  if (flag !== null) setFlagsFromString(flag);

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
