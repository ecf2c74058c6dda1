// The TUI's Esc and Ctrl+C in a real terminal (interfaces reference §5 case 5, §6.2; issue 18 item 3): Esc asks to
// cancel the running turn, and `y` cancels it for real (canceled shows once its worker and MCP server are gone);
// Ctrl+C while a turn runs asks first, any other key stays, and Ctrl+C twice quits.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { moment, spawnCount, turnInCall } from './cancelProbe.js';
import { MCP_SERVERS, startClientModel } from './clientScript.js';
import { hasTmux, terminal } from './tmuxTerminal.js';

describe('agentd tui: Esc and Ctrl+C', { skip: !hasTmux && 'tmux is not installed', timeout: 180_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let dir: string;
  before(async () => {
    model = await startClientModel({ type: 'boolean' });
    dir = tempStateDir();
    const yaml = ['a2a:', '  listen: http://127.0.0.1:0', 'intelligence:', `  endpoints: ${model.url}`, ...MCP_SERVERS];
    daemon = await startDaemon(dir, `${yaml.join('\n')}\n`);
  });
  after(async () => {
    await daemon.stop();
    await model.close();
  });

  /** The TUI attached in tmux; its exit code lands in `exit`. */
  const attach = (name: string) => {
    const exit = join(dir, `${name}.exit`);
    const tui = `AGENTD_URL=${daemon.url} ${process.execPath} ${AGENTD_BIN} tui --conversation new`;
    const term = terminal(name, `${tui}; echo "exit=$?" > ${exit}; sleep 60`);
    return { term, exited: () => (existsSync(exit) ? readFileSync(exit, 'utf8').trim() : null) };
  };

  it('Esc asks, then y cancels the long tool call: canceled shows only once its worker and MCP server are gone', async () => {
    const { term } = attach('agentd-tui-esc');
    try {
      await term.waitFor((s) => s.includes('● live'), 15_000, 'the TUI connects');
      const before = spawnCount(daemon);
      term.type('long tool please');
      const procs = await turnInCall(daemon, before, 'hold_on', 'lingeringMcpServer');
      await term.waitFor((s) => /⠿ hold_on/.test(s), 30_000, 'the long call shows');
      term.keys('Escape');
      await term.waitFor((s) => s.includes('cancel the running turn (task '), 10_000, 'Esc asks first');
      assert.ok(moment('asked', procs).workerAlive, 'asking cancels nothing');
      term.keys('n');
      await term.waitFor((s) => !s.includes('cancel the running turn'), 10_000, 'any other key keeps the turn');
      assert.ok(moment('declined', procs).workerAlive, 'declined: the worker still runs');
      assert.ok(term.screen().includes('⠿ hold_on'), 'and the call still shows');

      term.keys('Escape');
      await term.waitFor((s) => s.includes('cancel the running turn (task '), 10_000, 'Esc asks again');
      term.keys('y');
      await term.waitFor((s) => s.includes('canceled'), 15_000, 'the task shows canceled');
      const shown = moment('TUI screen', procs);
      assert.equal(shown.workerAlive, false, 'the worker was gone when canceled showed');
      assert.equal(shown.mcpAlive, false, 'the MCP server was gone when canceled showed');
    } finally {
      term.close();
    }
  });

  it('Ctrl+C with a turn running asks first; another key stays; Ctrl+C twice quits', async () => {
    const { term, exited } = attach('agentd-tui-ctrlc');
    try {
      await term.waitFor((s) => s.includes('● live'), 15_000, 'the TUI connects');
      term.type('ask me please');
      // The question keeps its task open (input required): a turn the quit would walk away from.
      await term.waitFor((s) => s.includes('1 yes   2 no'), 20_000, 'the turn asks and waits');
      term.keys('C-c');
      await term.waitFor((s) => s.includes('a turn is running: quit anyway?'), 10_000, 'Ctrl+C asks first');
      term.keys('x');
      await term.waitFor((s) => !s.includes('quit anyway?'), 10_000, 'another key declines');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(exited(), null, 'declined: the TUI still runs');
      assert.ok(term.screen().includes('● live'));
      term.keys('C-c');
      await term.waitFor((s) => s.includes('quit anyway?'), 10_000, 'asked again');
      term.keys('C-c');
      await waitUntil(() => exited() !== null, 10_000, 'Ctrl+C twice quits');
      assert.equal(exited(), 'exit=0');
    } finally {
      term.close();
    }
  });
});
