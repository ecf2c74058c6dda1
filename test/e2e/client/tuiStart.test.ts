// `agentd tui --start` in a real terminal (interfaces reference §5 cases 1 and 7; issue 18 item 3): one command
// starts the daemon (its logs to a file), attaches fullscreen with a header naming the daemon's name, version and
// instance, and `/quit` drains that daemon and exits 0, the shell's screen restored; with `--inline` the transcript
// stays in the terminal's scrollback after quitting.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../../src/runtime/version.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { hasTmux, terminal } from './tmuxTerminal.js';

const INSTANCE = 'tui-start-instance';
const NAME = 'Release Helper';

/** Runs `agentd tui --start` in tmux; the command's exit code lands in `<dir>/exit`. */
function startTui(base: string, model: ScriptedModel, flags: string[] = []) {
  const dir = tempStateDir();
  const config = join(dir, 'agent.yaml');
  const lines = ['agent:', `  name: ${INSTANCE}`, 'a2a:', '  listen: http://127.0.0.1:0', `  card: {name: ${NAME}}`];
  writeFileSync(config, [...lines, 'intelligence:', `  endpoints: ${model.url}`, ''].join('\n'));
  const log = join(dir, 'daemon.log');
  const env = `AGENTD_STATE_DIR=${dir} AGENTD_INTERFACE_LOG=${log}`;
  const tui = `${process.execPath} ${AGENTD_BIN} tui --start --config ${config} ${flags.join(' ')}`;
  const term = terminal(base, `cd ${dir}; env ${env} ${tui}; echo "exit=$?" > ${dir}/exit; sleep 60`);
  // The shell creates the file before it writes the line: only a whole line counts.
  const written = (): string => (existsSync(join(dir, 'exit')) ? readFileSync(join(dir, 'exit'), 'utf8') : '');
  const exit = (): string | null => (written().endsWith('\n') ? written() : null);
  return { term, dir, log, exit };
}

describe('agentd tui --start in a real terminal', {
  skip: !hasTmux && 'tmux is not installed',
  timeout: 120_000,
}, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'started and answering' }] });
  });
  after(() => model.close());

  it('starts a daemon, shows name, version and instance fullscreen, and /quit drains it and exits 0', async () => {
    const { term, log, exit } = startTui('agentd-tui-start', model);
    try {
      await term.waitFor((s) => s.includes('● live'), 30_000, 'the TUI attaches to the daemon it started');
      await term.waitFor((s) => s.includes(`${NAME} ${VERSION} @${INSTANCE}`), 10_000, 'the header names the daemon');
      assert.ok(term.alternate(), 'fullscreen by default: the alternate screen');
      const url = /"bound":"([^"]+)"/.exec(readFileSync(log, 'utf8'))?.[1];
      assert.ok(url, 'the daemon logged its listener into the log file');
      term.type('hello from the started tui');
      await term.waitFor((s) => s.includes('● started and answering'), 20_000, 'the started daemon answers');

      term.type('/quit');
      await waitUntil(() => exit() !== null, 40_000, 'the command exits');
      assert.equal(exit()?.trim(), 'exit=0');
      const logged = readFileSync(log, 'utf8');
      assert.match(logged, /"event":"drain\.done"/, 'the daemon drained');
      await assert.rejects(fetch(url), 'the daemon no longer listens');
      assert.ok(!term.alternate(), 'the alternate screen was left');
      const shell = term.screen();
      assert.match(shell, /agentd tui: endpoint http:\/\/127\.0\.0\.1:\d+ · daemon logs → /, 'the first line');
      assert.ok(!shell.includes('hello from the started tui'), `the shell's screen is back:\n${shell}`);
    } finally {
      term.close();
    }
  });

  it('--inline draws in the normal screen: the transcript stays in the scrollback after quitting', async () => {
    const { term, exit } = startTui('agentd-tui-inline', model, ['--inline']);
    try {
      await term.waitFor((s) => s.includes('● live'), 30_000, 'the TUI attaches');
      assert.ok(!term.alternate(), 'inline: not the alternate screen');
      term.type('an inline message');
      await term.waitFor((s) => s.includes('● started and answering'), 20_000, 'the reply');
      term.type('/quit');
      await waitUntil(() => exit() !== null, 40_000, 'the command exits');
      assert.equal(exit()?.trim(), 'exit=0');
      const scrollback = term.history(200);
      assert.ok(scrollback.includes('▌ an inline message'), `the prompt stays:\n${scrollback}`);
      assert.ok(scrollback.includes('● started and answering'), 'the reply stays');
    } finally {
      term.close();
    }
  });
});
