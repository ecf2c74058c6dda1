// The contracts of subagent.* (reference §1.4-1.5): names, schemas, suspension. Part of the internal contract
// table (tools/internalContracts.ts); the bodies are subagentTools.ts.

import type { InternalContract } from '../tools/internalContracts.js';
import { closed, open } from '../tools/schemaShapes.js';

const HANDLE = { type: 'string', minLength: 1 };
const ANSWER = open(
  { handle: { type: 'string' }, status: { type: 'string' }, result: {}, error: {}, timed_out: { type: 'boolean' } },
  ['handle', 'status'],
);
const OK = open({ ok: { type: 'boolean' }, handle: { type: 'string' } }, ['ok', 'handle']);

export const SUBAGENT_CONTRACTS: InternalContract[] = [
  {
    name: 'subagent.run',
    family: 'subagent',
    description:
      'Delegate a task to a subagent: sync (default) returns its result; async/detached a handle; warm takes ' +
      'subagent.send.',
    input_schema: closed({
      instruction: { type: 'string', description: 'Self-contained.' },
      mode: { type: 'string', enum: ['sync', 'async', 'detached', 'warm'] },
      template: { type: 'string', description: 'Instead of instruction.' },
      params: { type: 'object' },
      tools: { type: 'array', items: { type: 'string' }, description: 'Tool patterns: *, exact, prefix*.' },
      servers: { type: 'array', items: { type: 'string' }, description: 'MCP servers (default all).' },
      limits: { type: 'object', description: 'steps, tokens, deadline, memory, cpu.' },
      priority: { type: 'string', enum: ['low', 'normal', 'high'] },
      context: {
        type: 'array',
        items: closed({ role: { type: 'string' }, content: { type: 'string' } }, ['role', 'content']),
        description: 'Read before the instruction.',
      },
      output_contract: { type: 'string', description: "The answer's shape, in words." },
      output_schema: { type: 'object', description: 'JSON Schema of the answer.' },
      workflow: { type: 'string', description: 'Accepted and ignored (agentd compatibility).' },
      skills: { type: 'array', items: { type: 'string' }, description: 'Accepted and ignored.' },
    }),
    output_schema: open({ handle: { type: 'string' }, status: { type: 'string' }, result: {} }, ['handle', 'status']),
    suspends: true,
    ignored_inputs: ['workflow', 'skills'],
    hidden_inputs: ['servers', 'priority', 'context', 'output_contract'],
  },
  {
    name: 'subagent.await',
    family: 'subagent',
    description: "Wait for a subagent's end and its result; a timeout gives timed_out.",
    input_schema: closed({ handle: HANDLE, timeout: { type: ['string', 'number'], description: 'e.g. "30s".' } }, [
      'handle',
    ]),
    output_schema: ANSWER,
    suspends: true,
  },
  {
    name: 'subagent.send',
    family: 'subagent',
    description: 'Send a warm subagent its next message (one run each).',
    input_schema: closed({ handle: HANDLE, message: { type: 'string', minLength: 1 } }, ['handle', 'message']),
    output_schema: OK,
    suspends: false,
  },
  {
    name: 'subagent.status',
    family: 'subagent',
    description: "A subagent's status, result, error and tokens.",
    input_schema: closed({ handle: HANDLE }, ['handle']),
    output_schema: open({ handle: { type: 'string' }, status: { type: 'string' } }, ['handle', 'status']),
    suspends: false,
  },
  {
    name: 'subagent.list',
    family: 'subagent',
    description: 'Your subagents: handle, mode, status.',
    input_schema: closed({}),
    output_schema: open({ subagents: { type: 'array' } }, ['subagents']),
    suspends: false,
  },
  {
    name: 'subagent.kill',
    family: 'subagent',
    description: 'Stop a subagent (status cancelled).',
    input_schema: closed({ handle: HANDLE, reason: { type: 'string' } }, ['handle']),
    output_schema: OK,
    suspends: false,
  },
  {
    name: 'subagent.result',
    family: 'subagent',
    description:
      'Read a subagent result that was cut at 8000 bytes (its answer has full_result): one page from offset, ' +
      'then next_offset until null.',
    input_schema: closed(
      {
        handle: HANDLE,
        offset: { type: 'integer', minimum: 0, description: 'Bytes; full_result.next_offset first.' },
        run: { type: 'integer', minimum: 1, description: 'full_result.run: refuses if a newer result replaced it.' },
      },
      ['handle'],
    ),
    output_schema: open(
      { handle: { type: 'string' }, text: { type: 'string' }, next_offset: { type: ['integer', 'null'] } },
      ['handle', 'text', 'next_offset'],
    ),
    suspends: false,
  },
];

/** The internal tools a subagent itself gets (reference §5 item 5): subagent.* only while depth allows. */
export const SUBAGENT_OWN_TOOLS = [
  'finish',
  'memory.get',
  'memory.set',
  'memory.list',
  'memory.delete',
  'think',
  // Beyond agentd (reference §1.1 gives subagents no internal tools): a durable sleep (subagentSleep.ts).
  'sleep',
];
