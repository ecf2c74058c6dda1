// A `message` step's delivery reaches a run waiting with `wait on: message` in the built binary (turn reference
// §3.2, producers reference §2.8): the daemon's own wiring hands `message.send` deliveries to waiting steps
// before a turn, so the waiter completes with the text and no turn runs (none could: no model is configured).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const YAML = `workflows:
  - name: waiter
    steps:
      s: {kind: once}
      x: {kind: wait, depends_on: s, on: message, conversation: inbox-c, timeout: 10s}
      f: {kind: finish, depends_on: x, output: "{{steps.x.output.message.text}}"}
  - name: sender
    steps:
      s: {kind: once}
      nap: {kind: sleep, depends_on: s, duration: 500ms}
      tell: {kind: message, depends_on: nap, to: inbox-c, text: "hello waiter"}
      f: {kind: finish, depends_on: tell, output: "{{steps.tell.output}}"}
`;

describe('message deliveries and waiting steps over the binary', () => {
  it('a message step ends a wait on its conversation; no turn is started', async () => {
    const dir = tempStateDir();
    const config = join(dir, 'agentd.yaml');
    writeFileSync(config, YAML);
    const run = await runAgentd(['--config', config, '--state-dir', join(dir, 'state')], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const done = (workflow: string) => eventsNamed(run, 'run.done').find((e) => e.workflow === workflow);
    assert.equal(done('waiter')?.status, 'completed', String(done('waiter')?.err));
    assert.equal(done('sender')?.status, 'completed', String(done('sender')?.err));
    assert.equal(eventsNamed(run, 'message.wait.taken').length, 1);
    assert.equal(eventsNamed(run, 'inbox.accepted').length, 0, 'the delivery never became an inbox event');
    assert.equal(eventsNamed(run, 'turn.spawn').length, 0);
  });
});
