// A workflow `human` form gate answered from the TUI (interfaces reference §5 case 4; issue 18): the gate opened
// before the TUI attached is shown as numbered choices with `waiting for your choice`; a free-text answer its
// schema refuses is rejected (an `answer rejected: <why>` row) and the question asked again amended with why; `2` then Enter answers `hold`, the run
// finishes with output `hold`, and a second client sees the answer as a feed message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage } from '../../../src/client/daemonClient.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { hasTmux, terminal } from './tmuxTerminal.js';

const yaml = (model: string) => `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: ${model}
workflows:
  - name: release
    steps:
      s: {kind: once}
      h:
        kind: human
        depends_on: s
        question: "Ship the release?"
        schema: {type: object, properties: {decision: {enum: [ship, hold, rollback]}}}
        timeout: 5m
      f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}
`;

describe('agentd tui: a workflow form gate', { skip: !hasTmux && 'tmux is not installed', timeout: 120_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let dir: string;
  before(async () => {
    model = await startScriptedModel({ turns: [] });
    dir = tempStateDir();
    daemon = await startDaemon(dir, yaml(model.url));
  });
  after(async () => {
    if (daemon.child.exitCode === null) await daemon.stop();
    await model.close();
  });

  it('lists the choices, re-asks after a refused answer, and `2` answers hold', async () => {
    const asking = () => daemon.events.filter((e) => e.event === 'a2a.task' && e.state === 'input_required');
    await waitUntil(() => asking().length > 0, 30_000, 'the gate opens');
    const task = String(asking()[0]?.task);
    // A second client follows the feed from its start.
    const seen: FeedMessage[] = [];
    const stop = new AbortController();
    const other = new DaemonClient({ url: daemon.url });
    void other.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
    const tui = terminal('agentd-tui-gate', `AGENTD_URL=${daemon.url} ${process.execPath} ${AGENTD_BIN} tui; sleep 30`);
    try {
      // Opened before the TUI attached: the feed follows from now, so the bootstrap's `questions` read shows it.
      await tui.waitFor((s) => s.includes('1 ship   2 hold   3 rollback'), 20_000, 'three numbered choices');
      assert.ok(tui.screen().includes('⠿ waiting for your choice'), tui.screen());
      assert.ok(tui.screen().includes('Ship the release?'), 'the question');

      tui.type('maybe later');
      const amended = '(previous answer rejected: must be one of "ship", "hold", "rollback")';
      await tui.waitFor((s) => s.includes(`Ship the release? ${amended}`), 10_000, 'asked again, amended');
      const why = '✗ answer rejected: must be one of "ship", "hold", "rollback"';
      assert.ok(tui.screen().includes(why), `the rejection is shown as its own row:\n${tui.screen()}`);
      assert.ok(daemon.events.some((e) => e.event === 'a2a.answer.rejected' && e.task === task));
      assert.ok(tui.screen().includes('1 ship   2 hold   3 rollback'), 'the choices stay');

      tui.type('2');
      await tui.waitFor((s) => /▌ (\[\S+\] )?hold/.test(s), 10_000, 'the answer row');
      await tui.waitFor((s) => /● (\[\S+\] )?hold/.test(s), 20_000, 'the gate settles with its result');
      await tui.waitFor((s) => !s.includes('waiting for your choice'), 10_000, 'nothing waits any more');
      await waitUntil(() => daemon.events.some((e) => e.event === 'run.done'), 20_000, 'the run ends');
      await waitUntil(() => seen.some((e) => e.kind === 'answer'), 10_000, 'the second client sees the answer');
      const answers = seen.filter((e) => e.kind === 'answer').map((e) => e.data['text']);
      assert.deepEqual(answers, ['hold'], 'the refused answer is no answer');
    } finally {
      stop.abort();
      tui.close();
    }
    assert.equal(await daemon.stop(), 0);
    const store = new SqliteStore(dir);
    try {
      const runs = await store.workflows.listRuns({});
      assert.deepEqual(
        runs.map((r) => [r.status, r.output]),
        [['completed', 'hold']],
      );
    } finally {
      await store.close();
    }
  });
});
