// The contracts of goal.* and side.* (seed 003 goals and side tasks); part of the internal contract table.
import type { InternalContract } from './internalContracts.js';
import { closed, open } from './schemaShapes.js';

const GOAL = open({ objective: { type: 'string' }, status: { type: 'string' } }, ['objective', 'status']);

export const STEERING_CONTRACTS: InternalContract[] = [
  {
    name: 'goal.set',
    family: 'goal',
    description:
      'Set the goal this conversation keeps working toward between turns (replaces any current goal); the ' +
      'runtime continues with a new turn whenever the conversation is otherwise idle, until goal.complete.',
    input_schema: closed(
      {
        objective: { type: 'string', minLength: 1, description: 'What must be true when the goal is achieved.' },
        token_budget: { type: 'integer', minimum: 1, description: 'Tokens all of the goal turns may spend.' },
      },
      ['objective'],
    ),
    output_schema: open({ goal: GOAL }, ['goal']),
    suspends: false,
  },
  {
    name: 'goal.get',
    family: 'goal',
    description: "This conversation's goal with what it has spent (turns, tokens), or null.",
    input_schema: closed({}),
    output_schema: open({ goal: { anyOf: [GOAL, { type: 'null' }] } }, ['goal']),
    suspends: false,
  },
  {
    name: 'goal.clear',
    family: 'goal',
    description: "Drop this conversation's goal: no more continuation turns.",
    input_schema: closed({}),
    output_schema: open({ cleared: { type: 'boolean' } }, ['cleared']),
    suspends: false,
  },
  {
    name: 'goal.complete',
    family: 'goal',
    description:
      'Claim the goal is achieved; a judge checks the evidence against the objective. Rejected evidence is an ' +
      'error saying why, and the goal stays active.',
    input_schema: closed(
      { evidence: { type: 'string', minLength: 1, description: 'What shows the objective is met, concretely.' } },
      ['evidence'],
    ),
    output_schema: open({ achieved: { type: 'boolean' }, turns: { type: 'integer' }, tokens: { type: 'integer' } }, [
      'achieved',
    ]),
    suspends: true,
  },
  {
    name: 'side.start',
    family: 'side',
    description:
      "Fork a side task: a new conversation (yours, seeded with this one's summary) that works on the " +
      'instruction on its own; its result comes back here as a note.',
    input_schema: closed({ instruction: { type: 'string', minLength: 1 } }, ['instruction']),
    output_schema: open({ conversation: { type: 'string' } }, ['conversation']),
    suspends: false,
  },
  {
    name: 'side.promote',
    family: 'side',
    description: 'Keep a side task of this conversation as a normal conversation: it stops reporting back here.',
    input_schema: closed({ conversation: { type: 'string', minLength: 1 } }, ['conversation']),
    output_schema: open({ promoted: { type: 'boolean' } }, ['promoted']),
    suspends: false,
  },
];
