// A stdio MCP server that is slow to stop: `hold_on` answers only when its call is cancelled (or after `seconds`),
// and the process ignores stdin EOF and SIGTERM, so only a SIGKILL (the worker's close ladder, or a killpg) ends it
// before it leaves by itself after a minute. It makes "the task showed CANCELED while the MCP server still ran"
// observable: a server that exits at once on EOF hides that race.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const LINGER_MS = 60_000;

const server = new McpServer({ name: 'lingering', version: '1.0.0' });
server.registerTool(
  'hold_on',
  { description: 'Waits until cancelled, at most `seconds`', inputSchema: { seconds: z.number() } },
  (args, extra) =>
    new Promise((resolve) => {
      const answer = (text: string) => resolve({ content: [{ type: 'text' as const, text }] });
      const timer = setTimeout(() => answer('held'), args.seconds * 1_000);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        answer('cancelled');
      });
    }),
);
process.on('SIGTERM', () => {});
setTimeout(() => process.exit(0), LINGER_MS);
await server.connect(new StdioServerTransport());
