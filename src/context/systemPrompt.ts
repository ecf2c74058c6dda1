// The built-in system prompt (reference §8.2): most stable text first, most volatile last (a prompt-cache contract).
// Pure: callers pass the granted internal families, the instruction, the per-turn slot and the memory keys.

/** The most memory keys the prompt lists. */
export const MEMORY_KEYS_SHOWN = 32;

const PERSONA_TAIL = 'an autonomous, durable agent (agentd). You act by calling tools and reply when done.';
const INTERNAL_TAIL = 'are executed by your runtime and are durable; other tools come from connected MCP servers.';
const CONDUCT = 'Be concise and factual; never invent tool results.';
const MEMORY_LEAD = 'Keys you can read with memory.get:';

/** The built-in template in the template language of §8.1, for `agentd --context-template`. */
export const BUILTIN_PROMPT_TEMPLATE = [
  `You are {{instance}}, ${PERSONA_TAIL}`,
  `{{#if tools.internal}}Internal tools ({{tools.internal_text}}) ${INTERNAL_TAIL}`,
  `{{/if}}${CONDUCT}`,
  '{{#if instruction}}',
  '',
  '## Instruction',
  '{{instruction}}{{/if}}{{#if extra}}',
  '',
  '{{extra}}{{/if}}{{#if memory.keys}}',
  '',
  '## Memory',
  `${MEMORY_LEAD} {{memory.keys_text}}{{/if}}`,
].join('\n');

export interface SystemPromptInput {
  /** The instance name (agent.name). */
  instance: string;
  /** The agent's instruction; trimmed, omitted when blank. */
  instruction: string;
  /** Internal tool families granted to this turn, in display order (see tools/internalContracts internalFamilies). */
  internalFamilies: string[];
  /** The per-turn slot: a knowledge block or loaded skills. */
  extra?: string;
  /** Memory keys the model may read; at most MEMORY_KEYS_SHOWN are listed. */
  memoryKeys?: string[];
}

/** The persona paragraph: who the agent is and which internal families its runtime executes. */
export function renderPersona(instance: string, internalFamilies: string[]): string {
  const name = instance.trim() === '' ? 'agentd' : instance.trim();
  const lines = [`You are ${name}, ${PERSONA_TAIL}`];
  if (internalFamilies.length > 0) lines.push(`Internal tools (${internalFamilies.join(', ')}) ${INTERNAL_TAIL}`);
  lines.push(CONDUCT);
  return lines.join('\n');
}

/** Persona, `## Instruction`, the per-turn slot, `## Memory` — blocks separated by a blank line; never empty. */
export function renderSystemPrompt(input: SystemPromptInput): string {
  const blocks = [renderPersona(input.instance, input.internalFamilies)];
  const instruction = input.instruction.trim();
  if (instruction !== '') blocks.push(`## Instruction\n${instruction}`);
  const extra = (input.extra ?? '').trim();
  if (extra !== '') blocks.push(extra);
  const keys = (input.memoryKeys ?? []).slice(0, MEMORY_KEYS_SHOWN);
  if (keys.length > 0) blocks.push(`## Memory\n${MEMORY_LEAD} ${keys.join(', ')}`);
  return blocks.join('\n\n');
}
