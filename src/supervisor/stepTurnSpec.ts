// A workflow step's turn (producers reference §2.8): a conversation turn's snapshot narrowed by the step's settings —
// a think step's tool-less structured turn, an agent step's system, limits, tools and servers. Pure: payload in, out.
import type { StepTurnOptions } from '../domain/inbox.js';
import type { SpawnPayload } from '../protocol/frames.js';
import type { Msg, ToolDef } from '../protocol/messages.js';
import { matchPattern } from '../tools/policy.js';

/** Model calls a think step's turn makes at most: the answer and two re-asks (reference §2.8 `max_rounds` 3). */
export const THINK_MAX_ROUNDS = 3;

/** A think step's system prompt when it sets none (reference §2.8). */
export function thinkSystem(instance: string, schema: boolean): string {
  const reply = schema ? 'ONLY one JSON object matching the schema' : 'your conclusion';
  return `You are the reasoning module of ${instance}. Reply with ${reply}. No tools are available.`;
}

type Turn = SpawnPayload['turn'];

/** The turn's tools narrowed to the names `keep` accepts, wherever each runs. */
function narrowTools(turn: Turn, keep: (name: string, route: [string, string] | undefined) => boolean): Turn {
  const kept = (t: ToolDef): boolean => keep(t.name, turn.mcp_routes[t.name]);
  const routes = Object.entries(turn.mcp_routes).filter(([name, route]) => keep(name, route));
  const out: Turn = {
    ...turn,
    tools: turn.tools.filter(kept),
    internal: turn.internal.filter((name) => keep(name, undefined)),
    mcp_routes: Object.fromEntries(routes),
    code_tools: (turn.code_tools ?? []).filter((name) => keep(name, undefined)),
  };
  if (turn.more !== undefined) {
    const families = Object.entries(turn.more).map(([family, defs]) => [family, defs.filter(kept)] as const);
    const more = Object.fromEntries(families.filter(([, defs]) => defs.length > 0));
    if (Object.keys(more).length > 0) out.more = more;
    else delete out.more;
  }
  return out;
}

/** The turn with its withheld families offered at once. */
function unfolded(turn: Turn): Turn {
  const { more, ...rest } = turn;
  const offered = new Set(turn.tools.map((t) => t.name));
  const extra = Object.values(more ?? {})
    .flat()
    .filter((t) => !offered.has(t.name) && offered.add(t.name));
  return { ...rest, tools: [...turn.tools, ...extra] };
}

/** A think turn: no tools of any kind, a structured answer, three rounds (turn reference §12). */
function thinkTurn(turn: Turn): Turn {
  const { more: _more, ...rest } = turn;
  return { ...rest, kind: 'think', tools: [], internal: [], mcp_routes: {}, code_tools: [] };
}

/**
 * The payload of a step's turn: `payload` (a conversation turn's snapshot) with the step's settings applied. A think
 * step gets the reasoning-module prompt unless it sets `system`; `skills` (loaded bodies) follow a prompt that is not
 * the root one; `context` lines go first as system messages.
 */
export function stepTurnPayload(
  payload: SpawnPayload,
  step: StepTurnOptions,
  instance: string,
  skills = '',
): SpawnPayload {
  let turn: Turn = step.kind === 'think' ? thinkTurn(payload.turn) : payload.turn;
  if (step.kind === 'agent' && (step.tools !== undefined || step.servers !== undefined)) {
    const { tools, servers } = step;
    // Tools chosen by name are offered at once, never withheld behind tools.more (as a subagent's `tools` grant).
    if (tools !== undefined) turn = unfolded(turn);
    turn = narrowTools(turn, (name, route) => {
      if (tools !== undefined && !tools.some((p) => matchPattern(p, name))) return false;
      return route === undefined || servers === undefined || servers.includes(route[0]);
    });
  }
  const context: Msg[] = (step.context ?? []).map((text) => ({ role: 'system', text, ts: 0 }));
  for (const { role, text } of step.seeds ?? [])
    context.push(role === 'assistant' ? { role, text, tool_calls: [], ts: 0 } : { role, text, ts: 0 });
  const own =
    step.system ?? (step.kind === 'think' ? thinkSystem(instance, step.output_schema !== undefined) : turn.system);
  // Skills bodies follow a prompt of the step's own (the root prompt has them in its skills section already).
  const system = skills !== '' ? `${own}\n\n${skills}` : own;
  const rounds = step.max_rounds ?? (step.kind === 'think' ? THINK_MAX_ROUNDS : turn.max_rounds);
  return {
    ...payload,
    limits: {
      ...payload.limits,
      ...(step.max_steps !== undefined ? { max_steps: step.max_steps } : {}),
      ...(step.max_tokens !== undefined ? { max_tokens: step.max_tokens } : {}),
    },
    turn: {
      ...turn,
      system,
      messages: [...context, ...turn.messages],
      max_rounds: rounds,
      ...(step.output_schema !== undefined ? { output_schema: step.output_schema } : {}),
    },
  };
}
