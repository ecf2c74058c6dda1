// Subagent records (reference §1.6): plain data the supervisor keeps per delegated child, one per handle.
// No I/O; the terminal set is closed over every outcome status (reference §5 item 11).
import type { Usage } from '../protocol/messages.js';

export const SUBAGENT_MODES = ['sync', 'async', 'detached', 'warm'] as const;
export type SubagentMode = (typeof SUBAGENT_MODES)[number];

export type SubagentPriority = 'low' | 'normal' | 'high';

/** `spawned` and `running` are live; every other status is terminal. */
export type SubagentStatus =
  | 'spawned'
  | 'running'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'refused'
  | 'killed'
  | 'crashed'
  | 'exhausted_steps'
  | 'exhausted_tokens'
  | 'deadline'
  | 'loop_detected';

/** True for every status a child can end in: breadth, waiters and restore all read this one predicate. */
export function isTerminal(status: SubagentStatus): boolean {
  return status !== 'spawned' && status !== 'running';
}

/** Who started a subagent: the turn's conversation and principal, and the child's own depth (caller's + 1). */
export interface SubagentCaller {
  ctx: string;
  principal: string | null;
  /** The inbox event whose turn called (a replayed turn calls again under the same event). */
  event: string | null;
  /** The calling subagent's handle when a subagent delegates further. */
  subagent: string | null;
  depth: number;
  /** A workflow `subagent` step's run and step (its spend also counts against the run's `limits.tokens`). */
  run?: string;
  step?: string;
}

/** What a child is spawned from, again after a restart: credential-free (reference §1.12). */
export interface SubagentSpec {
  instruction: string;
  /** `tools` grant patterns (`*`, exact, `prefix*`); absent = no narrowing. */
  allowed_tools?: string[];
  /** A nested child's calling subagents' `tools` grants, outermost first: a tool must match one of each. */
  inherited_tools?: string[][];
  /** Granted MCP servers; absent = every configured server. */
  servers?: string[];
  limits: { max_steps: number; max_tokens: number; deadline_ms: number; memory_bytes?: number; cpu_seconds?: number };
  priority: SubagentPriority;
  context: Array<{ role: string; content: string }>;
  output_contract?: string;
  output_schema?: Record<string, unknown>;
  template?: string;
}

export interface SubagentRecord {
  handle: string;
  instruction: string;
  mode: SubagentMode;
  status: SubagentStatus;
  /** 1, then + 1 per respawn. */
  attempt: number;
  result: unknown;
  error: string | null;
  requested_by: SubagentCaller;
  /**
   * The `subagent.run` call that spawned it: `<inbox event>#<call index>` from a turn, `<handle>.run<n>#<call
   * index>` from a subagent. A replay making the same call (same mode and instruction) finds this record instead
   * of spawning a second child (reference §5 item 2).
   */
  call_key: string | null;
  /** Cumulative usage of every run. */
  tokens: Usage;
  /**
   * Charged tokens of this subagent and every subagent below it: what its `limits.tokens` bounds (the subtree
   * ceiling, reference §5 item 24). Absent in records stored before it was kept: 0.
   */
  tree_tokens?: number;
  /**
   * Set when `result` was cut: the whole text of result `run` is stored, `bytes` long, of which `result` shows
   * the first `shown`; subagent.result reads the rest (reference §5 item 24).
   */
  stored_result?: { run: number; bytes: number; shown: number } | null;
  /** Warm runs finished so far (a warm respawn also counts the runs it lost, so their keys are not used again). */
  runs: number;
  /**
   * Runs given call keys so far (`<handle>.run<n>`, started whether or not they finished), saved as each starts.
   * Absent in records stored before it was kept: `runs + 1`.
   */
  keyed_runs?: number;
  created: number;
  updated: number;
  spec: SubagentSpec;
}
