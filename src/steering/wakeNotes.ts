// Wake notes (seed 000, reference §3.2) as pure policy: which happenings leave a `[note]` the next turn of a
// conversation reads, and which start a turn at once. The supervisor appends what this decides.
import type { AgentConfig } from '../config/types.js';
import type { InboxOutcome } from '../domain/inbox.js';

/** Leave nothing, append a note to `ctx`, or accept `text` into `ctx` as a message with no principal (a turn). */
export type WakeAction = { kind: 'ignore' } | { kind: 'note' | 'think'; ctx: string; text: string };

type WakeConfig = Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'>;

/** How much of a run's reply or error a note quotes. */
export const WAKE_EXCERPT_CHARS = 400;

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length <= WAKE_EXCERPT_CHARS ? text : `${chars.slice(0, WAKE_EXCERPT_CHARS).join('')}…`;
}

/**
 * A run a `message.send` started in `conversation` (from `from`) finished: failures are noted while `wake_on`
 * holds `workflow_failed`; successes follow `on_workflow_finished` (`workflow_finished` in `wake_on` counts as
 * `note`), and `think` starts a turn in the sender's conversation at once.
 */
export function runFinishedWake(
  run: { from: string; conversation: string; outcome: InboxOutcome },
  cfg: WakeConfig,
): WakeAction {
  const { outcome } = run;
  const failed = outcome.status !== 'completed';
  const detail = failed ? outcome.error || outcome.reply : outcome.reply;
  const text = `run in ${run.conversation} ${outcome.status}: ${excerpt(detail.trim())}`;
  if (failed) return cfg.wake_on.includes('workflow_failed') ? { kind: 'note', ctx: run.from, text } : IGNORE;
  if (cfg.on_workflow_finished === 'think') return { kind: 'think', ctx: run.from, text };
  if (cfg.on_workflow_finished === 'note' || cfg.wake_on.includes('workflow_finished')) {
    return { kind: 'note', ctx: run.from, text };
  }
  return IGNORE;
}

/** A person's reply on a task that is not asking anything: kept as a note while `wake_on` holds `human_reply`. */
export function humanReplyWake(reply: { conversation: string; taskId: string; text: string }, cfg: WakeConfig) {
  if (!cfg.wake_on.includes('human_reply')) return IGNORE;
  return { kind: 'note', ctx: reply.conversation, text: `human reply (task ${reply.taskId}): ${reply.text}` } as const;
}

/** An A2A caller's message starts a turn while `wake_on` holds `a2a_message`; otherwise it is only noted. */
export function a2aMessageWakes(cfg: WakeConfig): boolean {
  return cfg.wake_on.includes('a2a_message');
}

/** The note an A2A message leaves when it does not wake the agent. */
export function a2aMessageNote(principal: string, text: string): string {
  return `message from ${principal} (no turn: agent.wake_on leaves out a2a_message): ${text}`;
}

const IGNORE: WakeAction = { kind: 'ignore' };
