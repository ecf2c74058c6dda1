// Step kinds that reach the turn side (producers reference §2.8 `agent`; turn reference §3.2 `message`): an agent
// step is a real turn through the inbox on its own conversation, a message step a durable message.send delivery.
import {
  done,
  failed,
  keyedAttempt,
  type NodeKind,
  pinnedKey,
  type StepContext,
  type StepResult,
} from '../nodeKind.js';

/** The agent step's fields this build refuses at load rather than accept and ignore. */
const AGENT_UNBUILT = ['tools', 'servers', 'limits', 'context', 'skills', 'system'] as const;

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
  const end = await turn({
    // One conversation per attempt: an agent step sees no history (reference §2.8).
    conversation: `wf-${ctx.run.id}-${ctx.step.id}-${attempt}`,
    text: agentText(ctx.spec, schema),
    principal: ctx.run.principal,
    key: `workflow:${pinnedKey(ctx)}#${attempt}`,
    signal: ctx.signal,
  });
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
    doc: "A real turn through the inbox on a fresh conversation per attempt (`wf-<run>-<step>-<attempt>`, acting as the run's principal): the user message is `instruction`, then `Output contract:` and the JSON-Schema demand when given. Output: the turn's structured value, else its reply (parsed as JSON when the common `output_schema` is set, which the output must then match). A non-completed turn fails the step `turn <status>[: <error>]` (`deadline` is a timeout). The accept is keyed per attempt (less the attempts a restart interrupted), so a restarted run finds the turn it asked for instead of starting a second one; a cancel, a timeout or the run's end cancels the turn. Not built yet (refused at load): `tools`, `servers`, `limits`, `context`, `skills`, `system`.",
    fields: {
      instruction: { required: true, doc: 'What the turn is asked to do (templates).' },
      output_contract: { doc: 'Text appended as `Output contract:`.' },
      ...Object.fromEntries(AGENT_UNBUILT.map((f) => [f, { doc: 'Refused at load: not built.' }])),
    },
    check: (fields) =>
      AGENT_UNBUILT.filter((f) => fields[f] !== undefined).map(
        (f) => `agent.${f} is not built in this version; remove it`,
      ),
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
