// A real terminal for the TUI's tests: one tmux session (its own server, -L) running a command, read with
// capture-pane and typed into with send-keys.
import { execFileSync } from 'node:child_process';

/** True when tmux can be run here. */
export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

/** One tmux session running `command`, 120×40; `screen()` is what it shows now. */
export function tmuxTerminal(base: string, command: string) {
  // Each terminal has its own tmux server (-L socket): with one shared server, a session started while the last one
  // is being killed can meet the exiting server ("server exited unexpectedly").
  const name = `${base}-${process.pid}`;
  const tmux = (args: string[], encoding?: 'utf8') => execFileSync('tmux', ['-L', name, ...args], { encoding });
  tmux(['new-session', '-d', '-s', name, '-x', '120', '-y', '40', command]);
  return {
    screen: (): string => {
      try {
        return tmux(['capture-pane', '-p', '-t', name], 'utf8') as string;
      } catch {
        return '';
      }
    },
    type: (text: string): void => {
      tmux(['send-keys', '-t', name, '-l', text]);
      tmux(['send-keys', '-t', name, 'Enter']);
    },
    close: (): void => {
      try {
        tmux(['kill-server']);
      } catch {
        // Already gone.
      }
    },
  };
}
