// CLI for the MCP test server: `[--addr-file FILE] [--port N]`; prints the URL and serves until SIGTERM/SIGINT.
// The address file is written atomically (tmp + rename) so a watcher never reads half a URL.
import { renameSync, writeFileSync } from 'node:fs';
import { startMcpTestServer } from './mcpTestServer.js';

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const port = flag(args, '--port');
  const server = await startMcpTestServer(port ? { port: Number(port) } : {});
  const addrFile = flag(args, '--addr-file');
  if (addrFile) {
    const tmp = `${addrFile}.${process.pid}.tmp`;
    writeFileSync(tmp, server.url);
    renameSync(tmp, addrFile);
  }
  process.stdout.write(`${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
