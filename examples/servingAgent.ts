// An embedded agent serving A2A: the same runtime answers your program's run() calls and A2A callers (the CLI
// client, the TUI, other agents), with /metrics beside it. Prints its addresses as one JSON line; stops on SIGTERM.
// Run: AGENT_ENDPOINT=… node servingAgent.js   then: AGENTD_URL=http://127.0.0.1:8080 agentd send "hello"
import { createAgent } from 'agentd';

const agent = await createAgent({
  name: 'served',
  model: process.env.AGENT_MODEL ?? 'gpt-4o-mini',
  intelligence: process.env.AGENT_ENDPOINT ?? 'https://api.openai.com/v1',
  store: process.env.AGENT_STATE_DIR ?? 'memory',
  config: { values: { observability: { log_level: 'warn' } } },
});
// A2A tasks a crash interrupted (with a state directory) were recovered when the agent started; serve() opens the
// listeners on that same runtime.
const addresses = await agent.serve({
  listen: process.env.A2A_LISTEN ?? 'http://127.0.0.1:8080',
  metrics: process.env.METRICS_ADDR ?? '127.0.0.1:9464',
});
const warmUp = await (await agent.run('Say hello.', { conversation: 'warm-up' })).result;
console.log(JSON.stringify({ ...addresses, warmUp: warmUp.reply }));
const stop = (): void => {
  agent.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
