// Operator commands over A2A: a data part `{"agentd": {"op": "status" | "pause" | "resume" | "drain"}}`.
// Deterministic (no model call); only the operator may run them.
import type { Supervisor } from '../supervisor/supervisor.js';
import { BackendError, type Principal } from './backend.js';

export const COMMANDS = ['status', 'pause', 'resume', 'drain'] as const;

export interface CommandDeps {
  supervisor: Supervisor;
  drain(): void;
}

/** Runs one command and returns its JSON result; throws BackendError for a refusal or an unknown op. */
export function runCommand(principal: Principal, op: string, deps: CommandDeps): unknown {
  if (!(COMMANDS as readonly string[]).includes(op)) {
    throw new BackendError('unsupported', `unknown command "${op}" (commands: ${COMMANDS.join(', ')})`);
  }
  if (principal.role !== 'operator') throw new BackendError('forbidden', `command "${op}" is for the operator`);
  const sup = deps.supervisor;
  switch (op) {
    case 'pause':
      sup.pause();
      return { paused: true };
    case 'resume':
      sup.resume();
      return { paused: false };
    case 'drain':
      deps.drain();
      return { draining: true };
    default:
      return sup.status();
  }
}
