// What the gates of one subagent.run call see (reference §1.4): live and recent counts, the caller's own live
// children and depth, the pressure, gate 8's granted servers and the subtree ceiling above a nested caller. Pure:
// the records and counts in, the view out; the decision is gates.ts's.
import type { Config } from '../config/types.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { ToolCaller } from '../tools/toolOutcome.js';
import { lineage, refusalOf, remainder } from './ceiling.js';
import { countView, formsTrifecta, type GateView } from './gates.js';
import { countCallerLive, grantedServers } from './subagentRecord.js';

export interface ViewInput {
  records: ReadonlyMap<string, SubagentRecord>;
  caller: ToolCaller;
  /** The call's `servers` argument. */
  asked: unknown;
  /** Live and recently active subagents (the spawn log's count). */
  recent: number;
  /** Calls past the gates whose handle is being minted. */
  minting: number;
  pressure: GateView['pressure'];
  config: Pick<Readonly<Config>, 'mcp' | 'security'>;
}

/** The calling subagent's spec: a nested child stays within its grants. */
export function parentSpec(records: ReadonlyMap<string, SubagentRecord>, caller: ToolCaller) {
  return caller.subagent ? records.get(caller.subagent.handle)?.spec : undefined;
}

export function gateViewOf(input: ViewInput): GateView {
  const { records, caller, config } = input;
  const view = countView(records.values(), input.recent, input.minting, caller.subagent?.depth ?? 0, input.pressure);
  const { mcp, security } = config;
  // Gate 8 judges the servers the child would get, a nested one's narrowed to its parent's.
  const names = grantedServers(input.asked, Object.keys(mcp.servers), parentSpec(records, caller));
  const ceiling = refusalOf(lineage(records, caller.subagent?.handle ?? null));
  return {
    ...view,
    callerLive: countCallerLive(records.values(), caller),
    trifecta: !security.allow_trifecta && formsTrifecta(names.map((n) => mcp.servers[n]?.tags)),
    ...(ceiling ? { ceiling } : {}),
  };
}

/** A nested child may spend no more than what its callers' subtrees have left (reference §5 item 24). */
export function capToCeiling(record: SubagentRecord, records: ReadonlyMap<string, SubagentRecord>): SubagentRecord {
  const above = record.requested_by.subagent;
  if (above === null) return record;
  const limits = record.spec.limits;
  limits.max_tokens = Math.min(limits.max_tokens, remainder(lineage(records, above)));
  return record;
}
