// Text renderings of a conversation's summary and plan (reference §8.3), shown to the model and counted in estimates.
// Pure: no I/O; the exact formats are a contract with the prompt and the compaction input.
import type { Summary } from '../domain/conversation.js';
import type { Plan, PlanItem } from '../domain/plan.js';

const MARKS: Record<PlanItem['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  done: '[x]',
  blocked: '[!]',
  skipped: '[-]',
};

const SECTIONS: [keyof Pick<Summary, 'goals' | 'decisions' | 'open' | 'facts'>, string][] = [
  ['goals', 'Goals:'],
  ['decisions', 'Decisions:'],
  ['open', 'Open items:'],
  ['facts', 'Facts:'],
];

/** True when the summary has no list entry and no narrative (then it is neither rendered nor counted). */
export function isSummaryEmpty(summary: Summary | null): boolean {
  if (summary === null) return true;
  const hasNarrative = (summary.narrative ?? '').trim() !== '';
  return !hasNarrative && SECTIONS.every(([key]) => summary[key].length === 0);
}

/** `Summary of earlier conversation:` then the non-empty sections as `- item` lines, then the narrative; '' when empty. */
export function renderSummary(summary: Summary | null): string {
  if (summary === null || isSummaryEmpty(summary)) return '';
  const lines = ['Summary of earlier conversation:'];
  for (const [key, heading] of SECTIONS) {
    const items = summary[key];
    if (items.length === 0) continue;
    lines.push(heading, ...items.map((item) => `- ${item}`));
  }
  const narrative = (summary.narrative ?? '').trim();
  if (narrative !== '') lines.push(narrative);
  return lines.join('\n');
}

/** `"<done>/<n> done"`, counting only items whose status is `done`. */
export function planProgress(plan: Plan): string {
  const done = plan.items.filter((item) => item.status === 'done').length;
  return `${done}/${plan.items.length} done`;
}

/** Complete ⇔ the plan has items and every one is done, blocked or skipped. */
export function isPlanComplete(plan: Plan | null): boolean {
  if (plan === null || plan.items.length === 0) return false;
  return plan.items.every((item) => item.status !== 'pending' && item.status !== 'in_progress');
}

/** `Plan (<done>/<n> done): <goal>` then `<mark> <id>. <title>[ — detail][ (note)]` per item. */
export function renderPlan(plan: Plan): string {
  const lines = [`Plan (${planProgress(plan)}): ${plan.goal}`];
  for (const item of plan.items) {
    let line = `${MARKS[item.status]} ${item.id}. ${item.title}`;
    if (item.detail) line += ` — ${item.detail}`;
    if (item.note) line += ` (${item.note})`;
    lines.push(line);
  }
  return lines.join('\n');
}
