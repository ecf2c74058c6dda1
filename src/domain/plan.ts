// A conversation's plan checklist (plan.* tools). Plain data only.

export interface PlanItem {
  id: number;
  title: string;
  detail?: string;
  status: 'pending' | 'in_progress' | 'done' | 'blocked' | 'skipped';
  note?: string;
  updated: number;
}

export interface Plan {
  goal: string;
  items: PlanItem[];
  next_id: number;
  created: number;
  updated: number;
}
