// Builders for context tests: plans and summaries with sensible defaults.
import type { Summary } from '../../../src/domain/conversation.js';
import type { Plan, PlanItem } from '../../../src/domain/plan.js';

export function item(id: number, title: string, status: PlanItem['status'] = 'pending', extra: Partial<PlanItem> = {}) {
  return { id, title, status, updated: 1, ...extra } satisfies PlanItem;
}

export function plan(goal: string, items: PlanItem[]): Plan {
  return { goal, items, next_id: items.length + 1, created: 1, updated: 2 };
}

export function summary(fields: Partial<Summary> = {}): Summary {
  return { goals: [], decisions: [], open: [], facts: [], covers_messages: 0, updated: 3, ...fields };
}
