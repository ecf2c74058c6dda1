// skills.list, skills.load and skills.unload (reference §9.5): the catalogue and the caller's loaded skills,
// through the host's SkillHost. A load fetches the body from its MCP source, so it answers later.
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  toolDefer,
  toolOk,
  toolUnavailable,
} from '../toolOutcome.js';
import type { Args } from './handler.js';

export function skillsList(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.skills) return toolUnavailable('skills.list');
  return toolOk(host.skills.list(caller.conversation));
}

export function skillsLoad(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.skills) return toolUnavailable('skills.load');
  return toolDefer(host.skills.load(caller.conversation, (args['name'] as string).trim()));
}

export function skillsUnload(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.skills) return toolUnavailable('skills.unload');
  return toolOk({ unloaded: host.skills.unload(caller.conversation, (args['name'] as string).trim()) });
}
