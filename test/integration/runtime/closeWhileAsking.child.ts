// A program embedding an agent (createAgent with an A2A listener): a caller's turn asks a person with a long
// timeout, then the program closes the agent and prints `closed`. It must then exit on its own (nothing left
// holding the event loop) and without an unhandled rejection. Usage: node closeWhileAsking.child.js MODEL_URL DIR
import { TaskState } from '@a2a-js/sdk';
import { createAgent } from '../../../src/agent.js';
import { createLogger } from '../../../src/obs/log.js';
import { asTask, send } from '../../e2e/daemon.js';
import { clientFor } from '../a2a/listenerHarness.js';

const [modelUrl = '', dir = ''] = process.argv.slice(2);
const agent = await createAgent({
  config: {
    env: { AGENTD_STATE_DIR: dir, AGENTD_LIFECYCLE_DRAIN_TIMEOUT: '500ms' },
    flags: { intelligence: modelUrl, model: 'test-model' },
    cwd: dir,
  },
  log: createLogger({ level: 'error', write: (line) => process.stderr.write(`${line}\n`) }),
  listen: 'http://127.0.0.1:0',
});
const client = await clientFor(agent.a2aUrl ?? '');
const task = asTask(await client.sendMessage(send('ask a person, take your time', {}, true)));
const deadline = Date.now() + 20_000;
while ((await client.getTask({ tenant: '', id: task.id })).status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
  if (Date.now() > deadline) throw new Error('the turn never asked');
  await new Promise((resolve) => setTimeout(resolve, 25));
}
process.stdout.write('asking\n');
await agent.close();
process.stdout.write('closed\n');
