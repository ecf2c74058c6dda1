// An agent with an MCP server: the reference server's tools (here `get-sum`) become the agent's tools; each
// turn's worker dials the server itself.
// Run: AGENT_ENDPOINT=… node mcpAgent.js   (MCP_SERVER defaults to `npx -y @modelcontextprotocol/server-everything`)
import { createAgent } from 'agentd';

const [command = 'npx', ...args] = (process.env.MCP_SERVER ?? 'npx -y @modelcontextprotocol/server-everything').split(
  ' ',
);
const agent = await createAgent({
  name: 'calculator',
  model: process.env.AGENT_MODEL ?? 'gpt-4o-mini',
  intelligence: process.env.AGENT_ENDPOINT ?? 'https://api.openai.com/v1',
  store: 'memory',
  mcp: { everything: { command, args } },
  config: { values: { observability: { log_level: 'warn' } } },
});
try {
  const run = await agent.run('What is 4 + 5? Use the get-sum tool.');
  const { status, reply } = await run.result;
  console.log(reply);
  process.exitCode = status === 'completed' ? 0 : 1;
} finally {
  await agent.close();
}
