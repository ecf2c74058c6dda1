// A conversation's plan checklist (plan.* tools). Plain data only.

export interface PlanItem {
  id: number;
  title: string;
  detail?: string;
  status: 'pending' | 'in_progress' | 'done' | 'blocked' | 'skipped';
  note?: string;
  /** What settles the item on its own: the subagent whose end marks it done, or blocked (reference §2.3). */
  bound?: { subagent: string };
  updated: number;
}

export interface Plan {
  goal: string;
  items: PlanItem[];
  next_id: number;
  created: number;
  updated: number;
}
