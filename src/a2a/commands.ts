// Commands over A2A: a data part `{"agentd": {"op": …, …args}}`. Deterministic (no model call). The operator's
// (status, pause, resume, drain, reload, goal.*) act on the instance or start turns; mode steers the caller's own
// conversation; subagent.* reach the caller's own subagents (every one for the operator). Anyone else asking for
// an operator command gets `forbidden` (-31403, reference §17.1).
import { QuotaExceeded } from '../budget/quotas.js';
import type { TaskRecord } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { SupervisorPort } from '../runtime/producer.js';
import type { ReloadReport } from '../runtime/reload.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { SUBAGENT_COMMANDS, subagentCommand } from '../subagents/subagentCommands.js';
import { BackendError, type Principal, type SendRequest } from './backend.js';
import { READ_COMMANDS, readCommand } from './readCommands.js';
import { newTask, transition } from './tasks.js';

/** `agentd/mode` metadata switches the conversation's mode before the message is accepted (its turn runs in it). */
export function applyMode(
  supervisor: SupervisorPort,
  principal: Principal,
  conversation: string,
  metadata: Record<string, unknown> | undefined,
): void {
  const mode = metadata?.['agentd/mode'];
  if (mode === undefined) return;
  if (mode !== 'plan' && mode !== 'execute') {
    throw new BackendError('invalid_params', 'metadata agentd/mode: expected plan or execute');
  }
  try {
    supervisor.steering.setMode(conversation, principal.id, mode);
  } catch (err) {
    throw new BackendError('invalid_params', describeError(err));
  }
}

/** Leaves a durable `[note]` in the conversation for its next turn. */
export function noteIn(supervisor: SupervisorPort, principal: Principal, conversation: string, note: string): void {
  try {
    supervisor.steering.noteFor(conversation, principal.id, note);
  } catch (err) {
    if (err instanceof BackendError) throw err;
    throw new BackendError('invalid_params', describeError(err));
  }
}

const COMMANDS = [
  'status',
  'pause',
  'resume',
  'drain',
  'reload',
  'pairing.code',
  'mode',
  'goal.set',
  'goal.get',
  'goal.clear',
  ...SUBAGENT_COMMANDS,
  ...READ_COMMANDS,
] as const;

/**
 * Commands whose task is answered, never stored (issue 18 item 1): reads, and `pairing.code`, whose answer is a
 * credential that must not reach the store.
 */
const READ_ONLY = new Set<string>([
  'status',
  'goal.get',
  'subagent.status',
  'subagent.list',
  'pairing.code',
  ...READ_COMMANDS,
]);

export function isReadOnly(op: string): boolean {
  return READ_ONLY.has(op);
}

const STEERING = new Set(['mode', 'goal.set', 'goal.get', 'goal.clear']);

/** `pairing.code`'s answer (interfaces §1.3): `role` and `sessions` (live paired sessions) as agentd names them. */
export interface PairingAnswer {
  code: string;
  expires_in_ms: number;
  role: 'operator' | 'user';
  sessions: number;
  /** The web UI's address, where the code is entered. */
  url: string;
}

export interface CommandDeps {
  supervisor: SupervisorPort;
  drain(): void;
  /** Reloads the config; a refusal is a result (`invalid`, `restart_required`), not an error (interfaces §3.6). */
  reload?(): ReloadReport;
  /** The caller's conversation named by the message's context id; null when the message named none. */
  conversation: string | null;
  /** Mints a web UI pairing code (`pairing.code`, pairingCodes.ts); null or absent = pairing is off. */
  pairing?(): Promise<PairingAnswer | null>;
  /** Where the read commands (conversation.get, questions) read; absent = they are unsupported. */
  store?: Pick<Store, 'conversations' | 'tasks'>;
  /** This replica's name when replicas share the store (a `drain` answer names the replica it drains). */
  replica?: string;
}

/** Runs the request's command and returns the completed task that answers it (no turn); throws BackendError. */
export async function commandTask(
  principal: Principal,
  req: SendRequest,
  deps: CommandDeps & { now: number },
): Promise<TaskRecord> {
  const op = req.command?.op ?? '';
  const { now, conversation } = deps;
  const base = newTask({
    id: newUlid(now),
    context_id: req.contextId ?? 'agentd',
    conversation: conversation ?? 'agentd',
    principal: principal.id,
    inbox_event: null,
    now,
  });
  let result: unknown;
  try {
    const args = req.command?.args ?? {};
    const run = () => runCommand(principal, op, args, deps);
    const reads = (READ_COMMANDS as readonly string[]).includes(op);
    if (reads && !deps.store) throw new BackendError('unsupported', `command "${op}": this instance has no store`);
    // Steering works on a conversation in memory: one evicted since its last use is loaded, and held while the
    // command runs. A command the caller may not run is refused before anything is loaded.
    const steers = conversation !== null && (op === 'mode' || (STEERING.has(op) && principal.role === 'operator'));
    result =
      reads && deps.store
        ? await readCommand(deps.store, principal, op, conversation, args)
        : steers
          ? await deps.supervisor.intake.withLoaded(conversation, run)
          : await run();
  } catch (err) {
    // A quota's refusal keeps its own error (-31429), like a message's.
    if (err instanceof BackendError || err instanceof QuotaExceeded) throw err;
    throw new BackendError('invalid_params', describeError(err));
  }
  return transition(base, 'completed', now, { result: JSON.stringify(result), message: op }) ?? base;
}

/** Runs one command and returns its JSON result; throws BackendError for a refusal or an unknown op. */
function runCommand(principal: Principal, op: string, args: Record<string, unknown>, deps: CommandDeps) {
  if (!(COMMANDS as readonly string[]).includes(op)) {
    throw new BackendError('unsupported', `unknown command "${op}" (commands: ${COMMANDS.join(', ')})`);
  }
  // mode is any caller's, on its own conversation; goal.* are operator commands (a goal starts turns on its own).
  if (op === 'mode') return steer(principal, op, args, deps);
  if (op.startsWith('subagent.')) {
    const answer = subagentCommand(deps.supervisor.subagents, principal, op, args);
    if (!answer.ok) throw new BackendError('invalid_params', answer.error);
    return answer.result;
  }
  if (STEERING.has(op) && principal.role === 'operator') return steer(principal, op, args, deps);
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
      // Replicas: a drain is this replica's only (scale-in drains each replica on its own); the answer names it.
      return deps.replica === undefined ? { draining: true } : { draining: true, replica: deps.replica };
    case 'reload':
      if (!deps.reload) throw new BackendError('unsupported', 'command "reload": this instance has no config sources');
      return deps.reload();
    case 'pairing.code':
      return pairingCode(deps);
    default:
      return sup.status();
  }
}

/** `pairing.code`: a new code (kept in the store, so any replica redeems it), or a refusal while pairing is off. */
async function pairingCode(deps: CommandDeps): Promise<{ pairing: PairingAnswer }> {
  const pairing = (await deps.pairing?.()) ?? null;
  if (pairing === null) {
    throw new BackendError('unsupported', 'command "pairing.code": pairing is off (a2a.pairing.enabled)');
  }
  return { pairing };
}

/** mode and goal.*: the caller steers a conversation of its own (the message's context id). */
function steer(principal: Principal, op: string, args: Record<string, unknown>, deps: CommandDeps): unknown {
  const ctx = deps.conversation;
  if (ctx === null) throw new BackendError('invalid_params', `command "${op}" needs the message's contextId`);
  const steering = deps.supervisor.steering;
  try {
    switch (op) {
      case 'mode': {
        const mode = args['mode'];
        if (mode !== 'plan' && mode !== 'execute') {
          throw new BackendError('invalid_params', 'command "mode" needs mode: plan or execute');
        }
        steering.setMode(ctx, principal.id, mode);
        return { mode };
      }
      case 'goal.set': {
        const { objective, token_budget: budget } = args;
        if (typeof objective !== 'string' || objective.trim() === '') {
          throw new BackendError('invalid_params', 'command "goal.set" needs a non-empty objective');
        }
        if (budget !== undefined && !(Number.isInteger(budget) && (budget as number) > 0)) {
          throw new BackendError('invalid_params', 'command "goal.set": token_budget must be a positive integer');
        }
        const goal = steering.goalSet(ctx, principal.id, objective, (budget as number | undefined) ?? null);
        steering.kick(ctx);
        return { goal };
      }
      case 'goal.get':
        return { goal: steering.goalGet(ctx, principal.id) };
      default:
        return { cleared: steering.goalClear(ctx, principal.id) };
    }
  } catch (err) {
    if (err instanceof BackendError || err instanceof QuotaExceeded) throw err;
    throw new BackendError('invalid_params', err instanceof Error ? err.message : String(err));
  }
}
