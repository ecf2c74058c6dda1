// Whether a person can be asked about a turn: one rule read by the supervisor's turn snapshot and the tool host
// alike. Pure; imports only domain types.
import type { InboxEvent } from './inbox.js';

/** What the task hooks tell about a person to ask (supervisorOptions' TaskHooks extends it). */
export interface HumanReach {
  /** True while a person can be asked (a listener is up). */
  readonly humanChannel: boolean;
  /** True while a person can be asked about this event's turn; absent: `humanChannel`. */
  humanChannelFor?(event: InboxEvent): boolean;
}

/** Whether a person can be asked about `event`'s turn. */
export function humanChannelOf(tasks: HumanReach | undefined, event: InboxEvent): boolean {
  return tasks?.humanChannelFor?.(event) ?? tasks?.humanChannel ?? false;
}
