// The scripted model both UI tests (TUI, web) drive: a prompt that runs a short tool call then answers, one that
// runs a long call on an MCP server slow to stop (to cancel), and one that asks a question with `schema`; every
// other prompt answers "all done".
import { fileURLToPath } from 'node:url';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';

/** The MCP test server with `trigger-long-running-operation`. */
export const EVERYTHING = fileURLToPath(
  new URL('../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

/** The stdio MCP server slow to stop, with `hold_on` (test/doubles/lingeringMcpServer.ts). */
export const LINGERING = fileURLToPath(new URL('../../doubles/lingeringMcpServer.js', import.meta.url));

/** The `mcp:` config section of both servers, as YAML lines. */
export const MCP_SERVERS = [
  'mcp:',
  '  servers:',
  `    everything: {command: "${process.execPath}", args: ["${EVERYTHING}", "stdio"]}`,
  `    lingering: {command: "${process.execPath}", args: ["${LINGERING}"]}`,
];

export function startClientModel(askSchema: Record<string, unknown>): Promise<ScriptedModel> {
  const long = (duration: number) => [
    { name: 'trigger-long-running-operation', arguments: { duration, steps: duration } },
  ];
  return startScriptedModel({
    turns: [{ content: 'all done' }],
    match: [
      { when_contains: 'quick tool please', times: 1, delay_ms: 1_500, tool_calls: long(3) },
      { when_contains: 'long tool please', times: 1, tool_calls: [{ name: 'hold_on', arguments: { seconds: 120 } }] },
      {
        when_contains: 'ask me please',
        times: 1,
        tool_calls: [{ name: 'ask_human', arguments: { question: 'Ship it?', schema: askSchema } }],
      },
    ],
  });
}
