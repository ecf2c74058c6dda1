#!/usr/bin/env node
// The `agentd` binary: runs the CLI, writes the reply to stdout, and is the only place the process exits.
import { redact } from '../obs/log.js';
import { EXIT } from './exitCodes.js';
import { runCli } from './run.js';

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
