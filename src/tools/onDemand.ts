// Internal tool families offered on demand (issue 14 item 5): a family listed in `agent.tools.on_demand` is left out
// of a turn's first offer and shown, from the next round on, once the model calls `tools.more {family}`. The calls
// still route (spec.internal keeps every granted name). Pure: tool lists in, tool lists out; no node:* imports.
import type { ToolDef } from '../protocol/messages.js';

/** The meta-tool's name; the worker answers it itself (no supervisor round-trip). */
export const TOOLS_MORE = 'tools.more';

/** What each family is for, in the meta-tool's description: the model chooses by these words alone. */
const BLURBS: Record<string, string> = {
  memory: 'durable notes',
  plan: 'a step checklist',
  goal: 'a standing objective',
  side: 'side tasks',
  subagent: 'child agents',
  workflow: 'run and define workflows',
  skills: 'load skills',
  context: 'compact the context',
  message: 'message other conversations',
};

/** A turn's offer: what the model sees first, and the withheld definitions by family. */
export interface ToolOffer {
  tools: ToolDef[];
  /** Family → its withheld definitions; absent when nothing is withheld. */
  more?: Record<string, ToolDef[]>;
}

/** The family of an internal tool name (`plan.update` → `plan`); undotted names have none. */
function familyOf(name: string): string | null {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : null;
}

/** What keeps a withheld family in a turn's first offer. */
export interface KeepFacts {
  /** The conversation's transcript: a family it already calls stays shown (and the cached prefix with it). */
  messages: readonly { role: string; tool_calls?: readonly { name: string }[] }[];
  /** The conversation has a goal: its turns work toward it and end it with goal.complete. */
  goal: boolean;
  /** The conversation has a plan checklist: its turns tick it off. */
  plan: boolean;
  /** The system prompt lists memory keys (and so invites memory.get). */
  memoryKeys: boolean;
}

/** The families to show up front whatever `agent.tools.on_demand` says. */
export function keptFamilies(facts: KeepFacts): Set<string> {
  const kept = new Set<string>();
  for (const m of facts.messages) {
    for (const call of m.tool_calls ?? []) {
      const family = familyOf(call.name);
      if (family !== null) kept.add(family);
    }
  }
  if (facts.goal) kept.add('goal');
  if (facts.plan) kept.add('plan');
  if (facts.memoryKeys) kept.add('memory');
  return kept;
}

/** The meta-tool's definition for the withheld `families` (in config order). */
export function toolsMoreDef(families: readonly string[]): ToolDef {
  const listed = families.map((f) => `${f} (${BLURBS[f] ?? f})`).join(', ');
  return {
    name: TOOLS_MORE,
    description: `Show a tool family for your next calls: ${listed}.`,
    input_schema: { type: 'object', properties: { family: { type: 'string', enum: [...families] } } },
  };
}

/**
 * Splits `tools` into the first offer and the withheld families: a family in `onDemand` is withheld unless it is
 * in `keep` (already in use, or the conversation holds its state). `tools.more` goes last, so the tools before it
 * keep their order and bytes. Nothing withheld ⇒ the tools as they were.
 */
export function planOffer(
  tools: readonly ToolDef[],
  onDemand: readonly string[],
  keep: ReadonlySet<string>,
): ToolOffer {
  const more: Record<string, ToolDef[]> = {};
  const shown: ToolDef[] = [];
  for (const tool of tools) {
    const family = familyOf(tool.name);
    if (family === null || !onDemand.includes(family) || keep.has(family)) shown.push(tool);
    else more[family] = [...(more[family] ?? []), tool];
  }
  const families = onDemand.filter((f) => Object.hasOwn(more, f));
  if (families.length === 0) return { tools: [...tools] };
  return { tools: [...shown, toolsMoreDef(families)], more };
}

/** The answer to a `tools.more` call: the tools to offer from now on, and the result the model reads. */
export function loadFamily(
  offered: readonly ToolDef[],
  more: Readonly<Record<string, ToolDef[]>>,
  args: unknown,
): { tools: ToolDef[]; result: string; is_error: boolean } {
  const family = typeof args === 'object' && args !== null ? (args as { family?: unknown }).family : undefined;
  const known = Object.keys(more);
  if (typeof family !== 'string' || !Object.hasOwn(more, family)) {
    return { tools: [...offered], result: `${TOOLS_MORE}: family must be one of ${known.join(', ')}`, is_error: true };
  }
  const defs = more[family] ?? [];
  const names = defs.map((d) => d.name).join(', ');
  if (defs.every((d) => offered.some((t) => t.name === d.name))) {
    return { tools: [...offered], result: `already shown: ${names}`, is_error: false };
  }
  return { tools: [...offered, ...defs], result: `now shown: ${names}`, is_error: false };
}

/** For a call that routes nowhere: the family to load when its name is a withheld tool's (wire spelling too). */
export function withheldFamily(more: Readonly<Record<string, ToolDef[]>> | undefined, name: string): string | null {
  const wire = (n: string): string => n.replace(/[^A-Za-z0-9_-]/g, '_');
  for (const [family, defs] of Object.entries(more ?? {})) {
    if (defs.some((d) => d.name === name || wire(d.name) === name)) return family;
  }
  return null;
}
