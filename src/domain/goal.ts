// A conversation's goal (seed 003 goals): what it aims at and what its continuations spent. Plain data only.

/** What a goal's continuation has spent, and how it stands (seed 003 goals). */
export interface Goal {
  objective: string;
  /** Tokens the goal's turns may spend in all; null = no cap of its own. */
  token_budget: number | null;
  status: 'active' | 'achieved' | 'stuck' | 'budget_limited' | 'stopped';
  /** Why continuation stopped (a cancel, a budget refusal), when status is stopped. */
  reason?: string;
  /** Turns and tokens spent while the goal was active. */
  turns: number;
  tokens: number;
  /** Continuations so far, and how many in a row called no tool. */
  continuations: number;
  idle_streak: number;
  evidence?: string;
  /** Set once the achieving turn itself is counted (the final accounting). */
  accounted?: boolean;
  created: number;
  updated: number;
}
