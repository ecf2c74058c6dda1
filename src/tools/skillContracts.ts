// The contracts of skills.* (reference §8.4); part of the internal contract table, granted only with skill sources.
import type { InternalContract } from './internalContracts.js';
import { closed, open } from './schemaShapes.js';

export const SKILL_CONTRACTS: InternalContract[] = [
  {
    name: 'skills.list',
    family: 'skills',
    description: 'List catalogue skills and which are loaded here.',
    input_schema: closed({}),
    output_schema: open({ skills: { type: 'array' }, loaded: { type: 'array' } }, ['skills', 'loaded']),
    suspends: false,
  },
  {
    name: 'skills.load',
    family: 'skills',
    description: 'Load a skill here and read its instructions.',
    input_schema: closed({ name: { type: 'string', minLength: 1 } }, ['name']),
    output_schema: open(
      { loaded: { type: 'boolean' }, name: { type: 'string' }, hash: { type: 'string' }, body: { type: 'string' } },
      ['loaded', 'name', 'body'],
    ),
    suspends: false,
  },
  {
    name: 'skills.unload',
    family: 'skills',
    description: 'Unload a skill from this conversation.',
    input_schema: closed({ name: { type: 'string', minLength: 1 } }, ['name']),
    output_schema: open({ unloaded: { type: 'boolean' } }, ['unloaded']),
    suspends: false,
  },
];
