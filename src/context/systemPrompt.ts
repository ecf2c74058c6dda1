// The system prompt (reference §8.1–§8.2): a template rendered over the turn's data. The built-in runs from the
// most stable section to the most volatile (a prompt-cache contract). Pure: data in, text and problems out.
import type { WorkflowDef } from '../domain/workflow.js';
import { cachedTemplate, renderTemplate } from './template.js';

/** The most memory keys the prompt lists. */
export const MEMORY_KEYS_SHOWN = 32;
/** The most workflows the prompt lists (the rest: workflow.list), and inputs shown per workflow. */
export const WORKFLOWS_SHOWN = 16;
const INPUTS_SHOWN = 8;
const DESCRIPTION_CHARS = 120;

const PERSONA_TAIL = 'an autonomous, durable agent (agentd). You act by calling tools and reply when done.';
const INTERNAL_TAIL = 'are executed by your runtime and are durable; other tools come from connected MCP servers.';
const CONDUCT = 'Be concise and factual; never invent tool results.';
const MEMORY_LEAD = 'Keys you can read with memory.get:';

/**
 * The built-in template (`agentd --context-template` prints it): persona, `## Instruction`, the per-turn slot
 * (`extra`: retrieved knowledge), `## Workflows`, the skills catalogue and loaded bodies, then `## Memory`.
 */
export const BUILTIN_PROMPT_TEMPLATE = [
  `You are {{instance}}, ${PERSONA_TAIL}`,
  `{{#if tools.internal}}Internal tools ({{tools.internal_text}}) ${INTERNAL_TAIL}`,
  `{{/if}}${CONDUCT}{{#if instruction}}`,
  '',
  '## Instruction',
  '{{instruction}}{{/if}}{{#if extra}}',
  '',
  '{{extra}}{{/if}}{{#if workflows}}',
  '',
  '## Workflows (workflow.run {name, inputs}; workflow.wait {run}){{#each workflows}}',
  '- {{this.name}}{{#if this.description}}: {{this.description}}{{/if}}' +
    '{{#if this.inputs_text}} (inputs: {{this.inputs_text}}){{/if}}{{/each}}{{#if workflows_more}}',
  '- {{workflows_more}}{{/if}}{{/if}}{{#if skills}}',
  '',
  '{{skills}}{{/if}}{{#if memory.keys}}',
  '',
  '## Memory',
  `${MEMORY_LEAD} {{memory.keys_text}}{{/if}}`,
].join('\n');

export interface SystemPromptInput {
  /** The instance name (agent.name). */
  instance: string;
  /** The agent's instruction (and instruction files); trimmed, omitted when blank. */
  instruction: string;
  /** Internal tool families granted to this turn, in display order (see tools/internalContracts internalFamilies). */
  internalFamilies: string[];
  /** The per-turn slot: a knowledge block. */
  extra?: string;
  /** The skills catalogue, then the bodies of the skills loaded on this conversation (pre-rendered). */
  skills?: string;
  /** Memory keys the model may read; at most MEMORY_KEYS_SHOWN are listed. */
  memoryKeys?: string[];
  /** The workflows this turn may start and wait on (none when it may not call workflow.run). */
  workflows?: readonly Pick<WorkflowDef, 'name' | 'description' | 'inputsSchema'>[];
}

/** One line of `## Workflows`: the name, the description's first line, the inputs (`p (required)`). */
export interface PromptWorkflow {
  name: string;
  description: string;
  inputs_text: string;
}

/** The variables a template sees (reference §8.1), for the sections this build has. */
export interface PromptData {
  instance: string;
  instruction: string;
  extra: string;
  tools: { internal: string[]; internal_text: string };
  skills: string;
  memory: { keys: string[]; keys_text: string };
  workflows: PromptWorkflow[];
  /** `<n> more: workflow.list`, or empty. */
  workflows_more: string;
}

/** A problem met while rendering, for the `prompt.render.fail` / `prompt.builtin.fail` events. */
export interface PromptProblem {
  event: 'prompt.render.fail' | 'prompt.builtin.fail';
  err: string;
}

function promptData(input: SystemPromptInput): PromptData {
  const keys = (input.memoryKeys ?? []).slice(0, MEMORY_KEYS_SHOWN);
  return {
    instance: input.instance.trim() === '' ? 'agentd' : input.instance.trim(),
    instruction: input.instruction.trim(),
    extra: (input.extra ?? '').trim(),
    tools: { internal: [...input.internalFamilies], internal_text: input.internalFamilies.join(', ') },
    skills: (input.skills ?? '').trim(),
    memory: { keys, keys_text: keys.join(', ') },
    ...workflowData(input.workflows ?? []),
  };
}

/** The `## Workflows` data (reference §8.2 item 4), kept short: it is in every turn's cached prefix. */
function workflowData(
  defs: NonNullable<SystemPromptInput['workflows']>,
): Pick<PromptData, 'workflows' | 'workflows_more'> {
  const workflows = defs.slice(0, WORKFLOWS_SHOWN).map((def) => {
    const first = def.description.trim().split('\n')[0] ?? '';
    const description = first.length > DESCRIPTION_CHARS ? `${first.slice(0, DESCRIPTION_CHARS - 1)}…` : first;
    return { name: def.name, description, inputs_text: inputsText(def.inputsSchema) };
  });
  const more = defs.length - workflows.length;
  return { workflows, workflows_more: more > 0 ? `${more} more: workflow.list` : '' };
}

/** The inputs schema's properties, required ones marked, like a subagent template's params. */
function inputsText(schema: Record<string, unknown> | null): string {
  const props = schema?.['properties'];
  if (props === null || typeof props !== 'object' || Array.isArray(props)) return '';
  const required = new Set(Array.isArray(schema?.['required']) ? (schema['required'] as unknown[]) : []);
  const names = Object.keys(props).map((p) => (required.has(p) ? `${p} (required)` : p));
  return names.length > INPUTS_SHOWN ? `${names.slice(0, INPUTS_SHOWN).join(', ')}, …` : names.join(', ');
}

/** The persona paragraph: who the agent is and which internal families its runtime executes. */
export function renderPersona(instance: string, internalFamilies: string[]): string {
  const name = instance.trim() === '' ? 'agentd' : instance.trim();
  const lines = [`You are ${name}, ${PERSONA_TAIL}`];
  if (internalFamilies.length > 0) lines.push(`Internal tools (${internalFamilies.join(', ')}) ${INTERNAL_TAIL}`);
  lines.push(CONDUCT);
  return lines.join('\n');
}

/** Renders `source`; a blank result is a failure too (the prompt must never be empty). */
function attempt(source: string, data: PromptData): { ok: true; text: string } | { ok: false; err: string } {
  try {
    const text = renderTemplate(cachedTemplate(source), data).trim();
    return text === '' ? { ok: false, err: 'the template rendered nothing' } : { ok: true, text };
  } catch (err) {
    return { ok: false, err: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The system prompt from `template` (context.template) or the built-in. A custom template that fails or renders
 * blank falls back to the built-in; if even that fails, persona + `## Instruction`. Never empty.
 */
export function renderPrompt(
  input: SystemPromptInput,
  template: string | null = null,
): { text: string; problems: PromptProblem[] } {
  const data = promptData(input);
  const problems: PromptProblem[] = [];
  if (template !== null) {
    const custom = attempt(template, data);
    if (custom.ok) return { text: custom.text, problems };
    problems.push({ event: 'prompt.render.fail', err: custom.err });
  }
  const builtin = attempt(BUILTIN_PROMPT_TEMPLATE, data);
  if (builtin.ok) return { text: builtin.text, problems };
  problems.push({ event: 'prompt.builtin.fail', err: builtin.err });
  const persona = renderPersona(data.instance, data.tools.internal);
  return { text: data.instruction === '' ? persona : `${persona}\n\n## Instruction\n${data.instruction}`, problems };
}

/** The built-in prompt's text (persona, instruction, slot, skills, memory); never empty. */
export function renderSystemPrompt(input: SystemPromptInput): string {
  return renderPrompt(input).text;
}
