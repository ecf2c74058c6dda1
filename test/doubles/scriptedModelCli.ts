// CLI for the scripted model: `--playbook FILE [--addr-file FILE] [--port N]`; serves until SIGTERM/SIGINT.
// The address file is written atomically (tmp + rename) so a watcher never reads half a URL.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Playbook } from './scriptedModel.js';
import { startScriptedModel } from './scriptedModel.js';

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const playbookFile = flag(args, '--playbook');
  if (!playbookFile) {
    process.stderr.write('usage: scriptedModelCli --playbook FILE [--addr-file FILE] [--port N]\n');
    process.exit(2);
  }
  const playbook = JSON.parse(readFileSync(playbookFile, 'utf8')) as Playbook;
  const port = flag(args, '--port');
  const model = await startScriptedModel(playbook, port ? { port: Number(port) } : {});
  const addrFile = flag(args, '--addr-file');
  if (addrFile) {
    const tmp = `${addrFile}.${process.pid}.tmp`;
    writeFileSync(tmp, model.url);
    renameSync(tmp, addrFile);
  }
  process.stdout.write(`${model.url}\n`);
  const stop = (): void => {
    void model.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
