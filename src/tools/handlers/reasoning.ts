// think and decide (reference §13): build a think child's request and hand it to the supervisor.
// The child itself (model call, structured answer, re-asks) runs in a worker; these bodies only shape the ask.

import type { ToolCaller, ToolOutcome, ToolResult } from '../toolOutcome.js';
import { type InternalToolHost, type ThinkRequest, toolDefer, toolError, toolUnavailable } from '../toolOutcome.js';
import { checkSchema } from '../validation.js';
import { type Args, compactJson } from './handler.js';

/** think's system prompt: the instance's reasoning module, answering in JSON, with no tools. */
function thinkSystemPrompt(instance: string, hasSchema: boolean): string {
  const reply = hasSchema
    ? 'ONLY one JSON object matching the schema'
    : 'your conclusion (a JSON object when the request asks for structure)';
  return (
    `You are the reasoning module of ${instance}. Think carefully about the request and reply with ${reply}. ` +
    'No tools are available.'
  );
}

/** decide's system prompt: one option, verbatim, and a confidence. */
function decideSystemPrompt(instance: string): string {
  return (
    `You are the decision module of ${instance}. Choose exactly one of the options for the question and say how ` +
    'sure you are. Reply with ONLY one JSON object {"choice": <one of the options, copied exactly>, ' +
    '"confidence": <a number from 0 to 1>}. No tools are available.'
  );
}

/** `memory[<k>] = <compact JSON>` for each key in `reads` that exists, in order, once each. */
async function memoryLines(reads: readonly string[], host: InternalToolHost): Promise<ThinkRequest['messages']> {
  const lines: ThinkRequest['messages'] = [];
  const now = host.now();
  for (const key of new Set(reads)) {
    const entry = await host.memory.get(key, now);
    if (entry !== null) lines.push({ role: 'system', text: `memory[${key}] = ${compactJson(entry.value)}` });
  }
  return lines;
}

/** Runs a think child with a free or schema-shaped answer; the value is the tool's result. */
export function think(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (host.think === undefined) return toolUnavailable('think');
  const prompt = (args['prompt'] as string).trim();
  if (prompt === '') return toolError('think: prompt must not be empty');
  const schema = args['output_schema'] as Record<string, unknown> | undefined;
  if (schema !== undefined) {
    const valid = checkSchema(schema);
    if (!valid.ok)
      return toolError(`invalid arguments for think: /output_schema is not a JSON Schema: ${valid.explain}`);
  }
  const ask = (lines: ThinkRequest['messages']): Promise<ToolResult> => {
    const request: ThinkRequest = {
      purpose: 'think',
      system: thinkSystemPrompt(host.instance, schema !== undefined),
      messages: [...lines, { role: 'user', text: prompt }],
      caller,
    };
    if (schema !== undefined) request.schema = schema;
    return child(request);
  };
  const child = host.think.bind(host);
  const reads = (args['reads'] as string[] | undefined) ?? [];
  // Without memory to read, the child is asked at once (a capability that throws is a ready error).
  return toolDefer(reads.length === 0 ? ask([]) : memoryLines(reads, host).then(ask));
}

/** The answer schema decide imposes: one of `options` and a confidence in [0, 1]. */
function decisionSchema(options: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      choice: { enum: [...options] },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
    },
    required: ['choice', 'confidence'],
    additionalProperties: false,
  };
}

/** A think child's answer checked once more against the options (the schema's enum is the child's promise). */
function checkChoice(answer: ToolResult, options: readonly string[]): ToolResult {
  if (answer.is_error) return answer;
  const value = answer.result as { choice?: unknown } | null;
  const choice = typeof value === 'object' && value !== null ? value.choice : undefined;
  if (typeof choice === 'string' && options.includes(choice)) return answer;
  return { result: `decide: the answer ${compactJson(choice ?? null)} is not one of the options`, is_error: true };
}

/** Picks one of 2..16 options with a think child; answers `{choice, confidence}`. */
export function decide(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (host.think === undefined) return toolUnavailable('decide');
  const question = (args['question'] as string).trim();
  if (question === '') return toolError('decide: question must not be empty');
  const options = args['options'] as string[];
  const blank = options.findIndex((o) => o.trim() === '');
  if (blank >= 0) return toolError(`decide: option ${blank + 1} is blank`);
  const context = ((args['context'] as string | undefined) ?? '').trim();
  const messages: ThinkRequest['messages'] = context === '' ? [] : [{ role: 'system', text: `Context: ${context}` }];
  const listed = options.map((o) => `- ${JSON.stringify(o)}`).join('\n');
  messages.push({ role: 'user', text: `${question}\n\nOptions:\n${listed}` });
  const request: ThinkRequest = {
    purpose: 'decide',
    system: decideSystemPrompt(host.instance),
    messages,
    schema: decisionSchema(options),
    caller,
  };
  return toolDefer(host.think(request).then((answer) => checkChoice(answer, options)));
}
