// The contracts of goal.* and side.* (seed 003 goals and side tasks); part of the internal contract table.
import type { InternalContract } from './internalContracts.js';
import { closed, open } from './schemaShapes.js';

const GOAL = open({ objective: { type: 'string' }, status: { type: 'string' } }, ['objective', 'status']);

export const STEERING_CONTRACTS: InternalContract[] = [
  {
    name: 'goal.set',
    family: 'goal',
    description:
      'Set (replace) the goal this conversation works toward: new turns start when it is idle, until goal.complete.',
    input_schema: closed(
      {
        objective: { type: 'string', minLength: 1, description: 'What must be true when achieved.' },
        token_budget: { type: 'integer', minimum: 1, description: 'Tokens all goal turns may spend.' },
      },
      ['objective'],
    ),
    output_schema: open({ goal: GOAL }, ['goal']),
    suspends: false,
  },
  {
    name: 'goal.get',
    family: 'goal',
    description: "This conversation's goal and its spend, or null.",
    input_schema: closed({}),
    output_schema: open({ goal: { anyOf: [GOAL, { type: 'null' }] } }, ['goal']),
    suspends: false,
  },
  {
    name: 'goal.clear',
    family: 'goal',
    description: "Drop this conversation's goal.",
    input_schema: closed({}),
    output_schema: open({ cleared: { type: 'boolean' } }, ['cleared']),
    suspends: false,
  },
  {
    name: 'goal.complete',
    family: 'goal',
    description:
      'Claim the goal is achieved; a judge checks the evidence (if rejected: an error, the goal stays active).',
    input_schema: closed({ evidence: { type: 'string', minLength: 1 } }, ['evidence']),
    output_schema: open({ achieved: { type: 'boolean' }, turns: { type: 'integer' }, tokens: { type: 'integer' } }, [
      'achieved',
    ]),
    suspends: true,
  },
  {
    name: 'side.start',
    family: 'side',
    description:
      "Fork a side task: a new conversation seeded with this one's summary; its result returns here as a note.",
    input_schema: closed({ instruction: { type: 'string', minLength: 1 } }, ['instruction']),
    output_schema: open({ conversation: { type: 'string' } }, ['conversation']),
    suspends: false,
  },
  {
    name: 'side.promote',
    family: 'side',
    description: 'Make a side task a normal conversation that stops reporting here.',
    input_schema: closed({ conversation: { type: 'string', minLength: 1 } }, ['conversation']),
    output_schema: open({ promoted: { type: 'boolean' } }, ['promoted']),
    suspends: false,
  },
];
