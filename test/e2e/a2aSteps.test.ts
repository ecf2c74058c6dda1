// `a2a.send` / `a2a.delegate` steps between two real daemons (producers reference §2.8): daemon A's workflow talks
// to peer daemon B through the official A2A client; a peer on a private address is refused unless the peer config
// allows it; a SIGKILL of A mid-delegate replays the step with the same messageId, and B acts on it once.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil } from '../integration/wait.js';
import { type Daemon, killAndRestart, startDaemon } from './daemon.js';
import { eventsNamed, tempStateDir } from './harness.js';

const HELLO = 'hello peer B';
const OBJECTIVE = 'Summarize the plan for the peer';
const SECRET = 'must never reach the peer';

function peerYaml(model: ScriptedModel): string {
  return `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
}

function callerYaml(model: ScriptedModel, peerUrl: string): string {
  return `a2a:
  listen: http://127.0.0.1:0
  peers:
    b: {url: "${peerUrl}", allow_private: true}
    strict: {url: "${peerUrl}"}
intelligence:
  endpoints: ${model.url}
workflows:
  - name: w
    steps:
      s: {kind: once}
      hello: {kind: a2a.send, depends_on: s, to: b, parts: "${HELLO}"}
      job: {kind: a2a.delegate, depends_on: hello, peer: b, objective: "${OBJECTIVE}", output_contract: one word}
      f: {kind: finish, depends_on: job, output: "CEL: [steps.hello.output.peer, steps.job.output.state, steps.job.output.text]"}
  - name: private
    steps:
      s: {kind: once}
      leak: {kind: a2a.send, depends_on: s, to: strict, parts: "${SECRET}"}
      f: {kind: finish, depends_on: leak}
`;
}

const asked = (model: ScriptedModel, text: string): number =>
  model.requests.filter((r) => JSON.stringify(r.body).includes(text)).length;

const runDone = (d: Daemon, workflow: string) => eventsNamed(d, 'run.done').filter((e) => e.workflow === workflow);

describe('a2a steps between two daemons', () => {
  const models: ScriptedModel[] = [];
  const daemons: Daemon[] = [];
  after(async () => {
    for (const d of daemons) if (d.child.exitCode === null) await d.stop();
    for (const m of models) await m.close();
  });

  it('sends, delegates and refuses a private peer; a SIGKILL mid-delegate makes B act once', async () => {
    const peerModel = await startScriptedModel({
      turns: [],
      match: [
        { when_contains: HELLO, content: 'hi A' },
        { when_contains: OBJECTIVE, content: 'planned', delay_ms: 2_500 },
      ],
    });
    const callerModel = await startScriptedModel({ turns: [{ content: 'unused' }] });
    models.push(peerModel, callerModel);
    const peer = await startDaemon(tempStateDir(), peerYaml(peerModel));
    daemons.push(peer);

    const dir = tempStateDir();
    const life1 = await startDaemon(dir, callerYaml(callerModel, peer.url));
    daemons.push(life1);
    // The private run fails at once: the peer's host is a loopback address and `strict` does not allow it.
    await waitUntil(() => runDone(life1, 'private').length === 1, 20_000, 'the private run ended');
    assert.equal(runDone(life1, 'private')[0]?.status, 'failed');
    assert.match(String(runDone(life1, 'private')[0]?.err), /private address/);
    // Killed while B works on the delegated task (its model holds the answer 2.5 s).
    await waitUntil(() => asked(peerModel, OBJECTIVE) === 1, 20_000, 'B works on the delegated objective');
    assert.equal(runDone(life1, 'w').length, 0, 'premise: the run was mid-delegate at the kill');
    const life2 = await killAndRestart(life1, dir, callerYaml(callerModel, peer.url));
    daemons.push(life2);

    await waitUntil(() => runDone(life2, 'w').length === 1, 30_000, 'the run ended in life 2');
    const done = runDone(life2, 'w')[0];
    assert.equal(done?.status, 'completed', String(done?.err ?? ''));
    assert.deepEqual(
      eventsNamed(life2, 'restore.step.replay').map((e) => e.step),
      ['job'],
      'the delegate step was replayed',
    );
    const delegated = eventsNamed(life2, 'a2a.delegate');
    assert.equal(delegated.length, 1);
    assert.equal(delegated[0]?.state, 'completed');
    // B acted once on each message: the replay's messageId found the task the first send made.
    const sends = eventsNamed(peer, 'a2a.request').filter((e) => e.method === 'SendMessage');
    assert.equal(sends.length, 3, 'premise: hello, the objective, and the objective again after the kill');
    const accepted = eventsNamed(peer, 'inbox.accepted').filter((e) => e.kind === 'a2a_message');
    assert.equal(accepted.length, 2, 'B accepted two messages: the replayed send made no second one');
    assert.equal(asked(peerModel, SECRET), 0, 'nothing reached B from the refused peer');
    assert.equal(eventsNamed(life2, 'run.start').length, 0, 'no second run');
  });
});
