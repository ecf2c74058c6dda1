// The values of `agent.tools.on_demand` (issue 14 item 5): config owns the key's vocabulary; tools/onDemand.ts
// applies it to a turn's tool offer. Kept here so config imports nothing from a feature folder.

/** The families `agent.tools.on_demand` may name: the dotted internal families. */
export const ON_DEMAND_FAMILIES = [
  'memory',
  'plan',
  'goal',
  'side',
  'subagent',
  'workflow',
  'skills',
  'context',
  'message',
] as const;

export type OnDemandFamily = (typeof ON_DEMAND_FAMILIES)[number];

/** The default: families a plain turn rarely needs (memory, plans, goals, side tasks, subagents, workflows). */
export const DEFAULT_ON_DEMAND: readonly OnDemandFamily[] = ['memory', 'plan', 'goal', 'side', 'subagent', 'workflow'];
