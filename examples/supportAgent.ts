// A support agent with a code tool: one question in, the reply on stdout, the turn's progress on stderr.
// Run: AGENT_ENDPOINT=https://api.openai.com/v1 AGENTD_INTELLIGENCE_TOKEN=sk-… node supportAgent.js "Where is ORD-1001?"
import { createAgent } from 'agentd';
import { tools } from './supportTools.js';

const agent = await createAgent({
  name: 'support',
  instruction: 'You answer customers about their orders. Look orders up with lookup_order; never guess.',
  model: process.env.AGENT_MODEL ?? 'gpt-4o-mini',
  intelligence: process.env.AGENT_ENDPOINT ?? 'https://api.openai.com/v1',
  store: 'memory',
  tools,
  toolsModule: new URL('./supportTools.js', import.meta.url),
  config: { values: { observability: { log_level: 'warn' } } },
});
try {
  const run = await agent.run(process.argv[2] ?? 'Where is my order ORD-1001?');
  for await (const event of run.events) {
    if (event.type === 'tool_call') process.stderr.write(`calling ${event.tool}\n`);
  }
  const { status, reply, usage } = await run.result;
  console.log(reply);
  process.stderr.write(`${status}: ${usage.input_tokens} tokens in, ${usage.output_tokens} out\n`);
  process.exitCode = status === 'completed' ? 0 : 1;
} finally {
  await agent.close();
}
