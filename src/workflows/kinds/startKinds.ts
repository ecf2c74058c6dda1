// Start nodes built in this issue (producers reference §2.4, §3.3): `once` fires at boot, `manual` only on request.
// A start node is never executed; firing it creates the run with the node `done` and the payload as its output.
import type { NodeKind } from '../nodeKind.js';

export const START_KINDS: readonly NodeKind[] = [
  {
    name: 'once',
    category: 'start',
    implemented: true,
    doc: 'Fires once per store when the daemon starts (a second life skips it: `start.once.skipped`).',
    fields: {
      policy: { doc: 'Reserved: only the default (once per store) is built.' },
      inputs: { doc: "The run's inputs (templates over `env`)." },
    },
    check: (fields) => (fields['policy'] === undefined ? [] : ['once.policy is not implemented in this build']),
  },
  {
    name: 'manual',
    category: 'start',
    implemented: true,
    doc: 'Fires only when asked: the `workflow.run` tool or A2A command, or a `workflow` step.',
    fields: { inputs: { doc: "Default inputs, overridden by the caller's." } },
  },
];

/** The start kinds of the catalogue that this build refuses at load (the triggers issue builds them). */
export const LATER_START_KINDS = ['loop', 'schedule', 'subscribe', 'signal', 'event', 'a2a', 'webhook'] as const;
