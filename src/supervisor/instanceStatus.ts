// What `status` reports about the instance: counts for the operator command and the tool, and the `status` verdict's
// text. Reads the job table and the conversation heads; changes nothing.
import type { ConversationBook } from '../context/conversationBook.js';
import type { SubagentRecord } from '../domain/subagent.js';
import { isAlarm, type TimerRecord } from '../domain/timer.js';
import { statusText } from '../obs/statusView.js';
import { liveSubagents } from '../subagents/subagentCommands.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import { type Hold, statusCounts, waitingJobs } from './jobQueries.js';
import type { JobTable } from './jobTable.js';

export interface StatusParts {
  name: string;
  generation: number;
  jobs: JobTable;
  conversations: ConversationBook;
  hold: Required<Hold>;
  /** The subagent desk's records, as a principal may see them (all without one). */
  subagents: { seenBy(principal?: string): readonly SubagentRecord[] };
  /** The armed durable timers, earliest first. */
  timers?: { list(): TimerRecord[] };
  /** The worker pool (spares kept warm, the spare target, the parallel-turn cap) and the instance budget's state. */
  workers?(): Record<string, number>;
  budget?(): Record<string, unknown> | null;
  /** The producers' ports: the workflow desk's live runs, when workflows are served. */
  ports?: WorkPorts | undefined;
}

/** A snapshot of the instance, or with `principal` of that principal's work only (a user turn's `status`). */
export function instanceStatus(at: StatusParts, principal?: string): Record<string, unknown> {
  const { paused, draining, pressure } = at.hold;
  // A user's status shows only the subagents its own turns started, like the subagent.* tools (issue 15 item 7).
  const subagents = liveSubagents(at.subagents.seenBy(principal));
  const { queued, running_turns } = statusCounts(at.jobs, principal);
  // From the heads: evicted conversations count too.
  const conversations =
    principal === undefined ? at.conversations.size : at.conversations.heads.usage(principal).conversations;
  return {
    instance: at.name,
    generation: at.generation,
    conversations,
    running_turns,
    queued,
    pressure,
    paused,
    draining,
    subagents,
    ...liveRuns(at, principal),
    // The operator's view only: a timer's owner and payload are another principal's business.
    ...(principal === undefined && at.timers ? timersSummary(at.timers.list()) : {}),
    ...(principal === undefined && at.workers ? { workers: { busy: running_turns, ...at.workers() } } : {}),
    ...(principal === undefined && at.budget ? { budget: at.budget() } : {}),
  };
}

/** `runs`: the live workflow runs and the steps running in each, a user's own only (like subagents). */
function liveRuns(at: StatusParts, principal: string | undefined) {
  const views = at.ports?.port('live_runs');
  return views ? { runs: views(principal) } : {};
}

/**
 * How many timers are armed, the next due time, and the next few (owner, kind, due); and each schedule's and loop's
 * next firing (`next_ms`, producers reference §3.2), read from its timer (`trigger:<workflow>.<node>`).
 */
function timersSummary(list: readonly TimerRecord[]) {
  const next = list.slice(0, 5).map(({ owner, kind, due }) => ({ owner, kind, due }));
  const next_firings = list
    .filter((t) => (t.kind === 'schedule' || t.kind === 'loop') && t.owner.startsWith('trigger:'))
    .map((t) => ({
      trigger: t.owner.slice('trigger:'.length),
      kind: t.kind,
      next_ms: t.due,
      at: new Date(t.due).toISOString(),
    }));
  return { timers: { armed: list.length, next_due: list.find(isAlarm)?.due ?? null, next }, next_firings };
}

/** The `status` verdict's reply: the instance as `principal` may see it. */
export function statusReply(at: StatusParts, principal: string | null): string {
  const running = [...at.jobs.values()].filter((j) => j.workerLive).map((j) => j.ctx);
  const queued = waitingJobs(at.jobs).map((j) => j.ctx);
  return statusText({ principal, conversations: at.conversations.heads.owners(), running, queued, ...at.hold });
}
