// A real terminal for the TUI's tests (interfaces reference §5: `tmux new-session -d -x 120 -y 40`, send-keys,
// capture-pane): one tmux server per terminal, keys by name, the visible screen and the scrollback, whether the
// alternate screen is on, and waits that show the screen when they time out (a CI log then says what was drawn).
import { execFileSync } from 'node:child_process';
import { waitUntil } from '../../integration/wait.js';

export { freePort } from '../freePort.js';

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

export interface Terminal {
  /** What the terminal shows now ('' once it is gone). */
  screen(): string;
  /** The screen with its scrollback (`capture-pane -S -lines`). */
  history(lines?: number): string;
  /** True while the program in it draws on the alternate screen. */
  alternate(): boolean;
  /** Types text, then Enter. */
  type(text: string): void;
  /** Sends keys by tmux name (`Escape`, `C-c`, `PageUp`) or literal characters (`y`). */
  keys(...names: string[]): void;
  /** Waits until the screen passes `check`; the error shows the screen. */
  waitFor(check: (screen: string) => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): void;
}

/**
 * One tmux session running `command` (a shell line) with `CI=true`. Each terminal has its own server (-L): one shared server can
 * be met exiting while the next session starts. `-u`: UTF-8 whatever the locale, so `●` and `✗` are drawn as such.
 */
export function terminal(base: string, command: string): Terminal {
  const name = `${base}-${process.pid}`;
  const tmux = (args: string[]): string =>
    execFileSync('tmux', ['-u', '-L', name, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const quietly = (args: string[]): string => {
    try {
      return tmux(args);
    } catch {
      return '';
    }
  };
  // CI=true as on a CI machine: Ink would draw nothing until exit there, unless `agentd tui` hides it (importTui).
  tmux(['new-session', '-d', '-s', name, '-x', '120', '-y', '40', `export CI=true; ${command}`]);
  const screen = (): string => quietly(['capture-pane', '-p', '-t', name]);
  return {
    screen,
    history: (lines = 500) => quietly(['capture-pane', '-p', '-S', `-${lines}`, '-t', name]),
    alternate: () => quietly(['display-message', '-p', '-t', name, '#{alternate_on}']).trim() === '1',
    type: (text) => {
      tmux(['send-keys', '-t', name, '-l', text]);
      tmux(['send-keys', '-t', name, 'Enter']);
    },
    keys: (...names) => {
      for (const key of names) tmux(['send-keys', '-t', name, key]);
    },
    waitFor: async (check, timeoutMs, what) => {
      try {
        await waitUntil(() => check(screen()), timeoutMs, what);
      } catch (err) {
        throw new Error(`${(err as Error).message}; the screen:\n${screen()}`);
      }
    },
    close: () => void quietly(['kill-server']),
  };
}
