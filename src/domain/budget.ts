// A durable budget counter (reference §10.2). Plain data only.

/**
 * One durable budget counter (reference §10.2): the bucket `index` of window `window` (a governor window key, or
 * `lifetime`) in `scope`, and what it has counted. Reserved amounts are never stored.
 */
export interface BudgetCounter {
  scope: string;
  window: string;
  index: number;
  tokens: number;
  requests: number;
}
