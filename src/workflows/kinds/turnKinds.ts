// Step kinds that reach the turn side (producers reference §2.8 `agent`; turn reference §3.2 `message`): an agent
// step is a real turn through the inbox on its own conversation, a message step a durable message.send delivery.
import type { StepTurnOptions } from '../../domain/inbox.js';
import type { WorkflowRun } from '../../domain/workflow.js';
import {
  chargeTurn,
  done,
  failed,
  keyedAttempt,
  lateSpend,
  type NodeKind,
  pinnedKey,
  type StepContext,
  type StepResult,
  turnTokenCap,
} from '../nodeKind.js';
import { SKILLS_DOC, skillsProblems } from './thinkKind.js';

/** `limits` keys: model rounds (`steps`) and tokens of the step's turn. */
const LIMIT_KEYS = ['steps', 'tokens'] as const;

const isNames = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'string' && n !== '');

type Seed = { role: string; content: string };
const SEED_ROLES = ['system', 'user', 'assistant'];
const isSeeds = (v: unknown): v is Seed[] =>
  Array.isArray(v) &&
  v.every(
    (m) =>
      m !== null &&
      typeof m === 'object' &&
      Object.keys(m).length === 2 &&
      SEED_ROLES.includes((m as Seed).role) &&
      typeof (m as Seed).content === 'string',
  );

/** Load problems of `system`, `tools`, `servers`, `context` and `limits`. */
function agentFieldProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (fields['system'] !== undefined && typeof fields['system'] !== 'string')
    problems.push('agent.system must be a string');
  for (const f of ['tools', 'servers'] as const)
    if (fields[f] !== undefined && !isNames(fields[f])) problems.push(`agent.${f} must be a non-empty list of names`);
  if (fields['context'] !== undefined && !isSeeds(fields['context']))
    problems.push('agent.context must be a list of {role, content} (role system, user or assistant)');
  const limits = fields['limits'];
  if (limits === undefined) return problems;
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits))
    return [...problems, 'agent.limits must be {steps?, tokens?}'];
  for (const [key, value] of Object.entries(limits)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key))
      problems.push(`agent.limits: unknown field "${key}" (allowed: ${LIMIT_KEYS.join(', ')})`);
    else if (!(Number.isInteger(value) && (value as number) > 0))
      problems.push(`agent.limits.${key} must be a positive integer`);
  }
  return problems;
}

/**
 * The step's own turn settings, or none when it sets none of them. An `output_schema` goes to the turn too: the
 * worker asks the model for it through its structured-output path (a response format where the provider takes
 * one) and re-asks a miss twice within the turn (turn reference §12), as for a think step.
 */
function agentOptions(
  spec: Readonly<Record<string, unknown>>,
  schema: Record<string, unknown> | null,
  run: Readonly<WorkflowRun>,
): StepTurnOptions | undefined {
  const limits = (spec['limits'] ?? {}) as Partial<Record<(typeof LIMIT_KEYS)[number], number>>;
  const options: StepTurnOptions = {
    kind: 'agent',
    ...(typeof spec['system'] === 'string' ? { system: spec['system'] } : {}),
    ...(isNames(spec['tools']) ? { tools: spec['tools'] } : {}),
    ...(isNames(spec['servers']) ? { servers: spec['servers'] } : {}),
    ...(isNames(spec['skills']) ? { skills: spec['skills'] } : {}),
    ...(isSeeds(spec['context'])
      ? { seeds: spec['context'].map((m) => ({ role: m.role as 'system' | 'user' | 'assistant', text: m.content })) }
      : {}),
    ...(limits.steps !== undefined ? { max_steps: limits.steps } : {}),
    ...turnTokenCap(run, limits.tokens),
    ...(schema !== null ? { output_schema: schema } : {}),
  };
  return Object.keys(options).length > 1 ? options : undefined;
}

/** The user message of an agent step (reference §2.8): instruction, contract, then the schema demand. */
function agentText(spec: Readonly<Record<string, unknown>>, schema: unknown): string {
  let text = String(spec['instruction']);
  if (spec['output_contract'] !== undefined) text += `\n\nOutput contract:\n${String(spec['output_contract'])}`;
  if (schema !== undefined && schema !== null)
    text += `\n\nReply with ONLY one JSON object matching this JSON Schema:\n${JSON.stringify(schema)}`;
  return text;
}

function parsedReply(reply: string): unknown {
  try {
    return JSON.parse(reply.trim());
  } catch {
    return reply;
  }
}

async function runAgent(ctx: StepContext): Promise<StepResult> {
  const turn = ctx.ports.turn;
  if (!turn) return failed('agent: no turns in this process');
  const schema = ctx.step.outputSchema;
  // Keyed by the attempt less the replays: a step a restart interrupted finds the turn it accepted (§2.11).
  const attempt = keyedAttempt(ctx);
  const options = agentOptions(ctx.spec, schema, ctx.run);
  const end = await turn({
    // One conversation per attempt: an agent step sees no history (reference §2.8).
    conversation: `wf-${ctx.run.id}-${ctx.step.id}-${attempt}`,
    text: agentText(ctx.spec, schema),
    principal: ctx.run.principal,
    key: `workflow:${pinnedKey(ctx)}#${attempt}`,
    signal: ctx.signal,
    spendLate: lateSpend(ctx),
    ...(options ? { options } : {}),
  });
  await chargeTurn(ctx, end);
  if (end.status === 'completed') {
    if (end.value !== undefined) return done(end.value);
    return done(schema === null ? end.reply : parsedReply(end.reply));
  }
  const error = `turn ${end.status}${end.error ? `: ${end.error}` : ''}`;
  return { type: 'failed', error, ...(end.status === 'deadline' ? { timeout: true } : {}) };
}

async function runMessage(ctx: StepContext): Promise<StepResult> {
  const deliver = ctx.ports.deliver;
  if (!deliver) return failed('message: no delivery in this process');
  const receipt = await deliver({
    to: String(ctx.spec['to']),
    text: String(ctx.spec['text']),
    from: ctx.run.conversation,
    principal: ctx.run.principal,
    key: `workflow:${pinnedKey(ctx)}`,
  });
  if (!receipt.ok) return failed(`message: ${receipt.error}`);
  return done({ delivered: true, conversation: receipt.conversation, depth: receipt.depth });
}

export const TURN_KINDS: readonly NodeKind[] = [
  {
    name: 'agent',
    category: 'intelligence',
    implemented: true,
    effect: true,
    doc: "A real turn through the inbox on a fresh conversation per attempt (`wf-<run>-<step>-<attempt>`, acting as the run's principal): the user message is `instruction`, then `Output contract:` and the JSON-Schema demand when given. Output: the turn's structured value, else its reply (parsed as JSON when the common `output_schema` is set, which the output must then match). With `output_schema` the turn asks the model through its structured-output path (a response format) and re-asks a miss twice within the turn. Its tokens count against the run's `limits.tokens`. A non-completed turn fails the step `turn <status>[: <error>]` (`deadline` is a timeout). The accept is keyed per attempt (less the attempts a restart interrupted), so a restarted run finds the turn it asked for instead of starting a second one; a cancel, a timeout or the run's end cancels the turn. `system` replaces the turn's system prompt; `tools` patterns narrow what it is offered and may call; `servers` leaves out the tools of other MCP servers (and their connections); `context` seeds are read before the instruction; `skills` are loaded on the step's conversation first (their bodies in the root prompt's skills section, or after `system`); `limits` caps its model rounds and tokens (a turn over them ends `exhausted_steps` / `exhausted_tokens`, failing the step).",
    fields: {
      instruction: { required: true, doc: 'What the turn is asked to do (templates).' },
      output_contract: { doc: 'Text appended as `Output contract:`.' },
      tools: { doc: 'Tool-name patterns (`memory.*`, `crm.lookup`): the turn is offered, and may call, only these.' },
      servers: {
        doc: 'MCP servers (names in `mcp.servers`) the turn reaches: tools of other servers are left out.',
      },
      limits: { doc: "`{steps?, tokens?}`: the turn's model rounds and tokens (default `limits.run.*`)." },
      context: {
        doc: 'Seed messages `[{role, content}]` read before the instruction (role system, user or assistant).',
      },
      skills: { doc: SKILLS_DOC },
      system: { doc: 'Replaces the system prompt of the turn (templates).' },
    },
    check: (fields) => [...agentFieldProblems(fields), ...skillsProblems('agent', fields['skills'])],
    run: runAgent,
  },
  {
    name: 'message',
    category: 'integration',
    implemented: true,
    effect: true,
    doc: "message.send from the run (turn reference §3.2): delivers `text` to `to` (a conversation id, `root` or `new`) as an `agent_message` from the run's conversation; durable once the step is done, keyed by the step so a restart never delivers twice. Output `{delivered, conversation, depth}`; a refused delivery fails the step `message: <reason>`.",
    fields: {
      to: { required: true, doc: 'A conversation id, `root` or `new`.' },
      text: { required: true, doc: 'The message (templates).' },
    },
    run: runMessage,
  },
];
