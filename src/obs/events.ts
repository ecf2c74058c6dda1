// Every event name the runtime emits (reference §20), declared once so a typo is a compile error.

export const EVENT_NAMES = [
  // process and lifecycle
  'proc.ready',
  'proc.exit',
  'config.loaded',
  'store.opened',
  'restore.done',
  'drain.start',
  'drain.done',
  'agent.paused',
  'agent.resumed',
  // inbox and producers
  'inbox.accepted',
  'inbox.done.fail',
  'inbox.unknown_kind',
  'prompt.reject',
  'prompt.skipped',
  // turns
  'turn.spawn',
  'turn.spawn.fail',
  'turn.done',
  'turn.failed',
  'turn.reply',
  'turn.kill',
  'root.finish',
  'tool.request',
  'tool.reply',
  'tool.result.schema',
  'child.exit',
  'child.unhealthy',
  'store.checkpoint.fail',
  'plan.updated',
  'tool.park',
  'tool.unpark',
  // worker side
  'loop.start',
  'loop.error',
  'turn.start',
  'turn.round',
  'turn.think',
  'turn.tool',
  'turn.reask',
  'tool.call',
  'tool.result',
  'intel.retry',
  'turn.budget_wait',
  'turn.model_degraded',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
