// The `a2a.peers` key: agents the workflow steps `a2a.send` / `a2a.delegate` may reach, by name. Pure: shapes and
// validates; a bearer resolves `{{secret:NAME}}` and is redacted from events. Private addresses are refused when
// the step sends unless the peer sets `allow_private` (the check needs DNS, so it runs at send time).

import type { StepDef } from '../domain/workflow.js';
import type { A2aPeerConfig } from './a2aTypes.js';
import type { ValueKind } from './kinds.js';
import { showValue } from './kinds.js';
import { closedMapping, isMapping, nameAt, problemAt, shaped, textAt } from './mappings.js';
import type { Config } from './types.js';
import { everyStep } from './workflowSteps.js';

const PEER_KEYS = ['url', 'bearer', 'allow_private'];
const PEER_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;

type Peers = Readonly<Record<string, A2aPeerConfig>>;

function readPeer(value: unknown, name: string): A2aPeerConfig {
  const given = closedMapping(value, PEER_KEYS, [name], 'a mapping with url (and bearer, allow_private)');
  if (given['url'] === undefined) problemAt([name], "expected a url (the peer's agent card base, http(s)://…)");
  const url = nameAt(given['url'], [name, 'url']);
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    problemAt([name, 'url'], `expected an http(s) URL, got ${showValue(url)}`);
  const allow = given['allow_private'];
  if (allow !== undefined && typeof allow !== 'boolean') problemAt([name, 'allow_private'], 'expected true or false');
  const bearer =
    given['bearer'] === undefined || given['bearer'] === null ? null : textAt(given['bearer'], [name, 'bearer']);
  return { url, bearer, allow_private: allow === true };
}

/** a2a.peers: name → `{url, bearer?, allow_private?}`. */
export function peersKind(): ValueKind<Peers> {
  return {
    type: 'mapping of peer name to {url, bearer, allow_private}',
    fromYaml: (value) =>
      shaped(() => {
        if (value === null) return {};
        if (!isMapping(value)) return problemAt([], 'expected a mapping of peer name to {url, bearer, allow_private}');
        const peers: Record<string, A2aPeerConfig> = {};
        for (const [name, peer] of Object.entries(value)) {
          if (!PEER_NAME.test(name)) problemAt([name], 'a peer name is [a-zA-Z_][a-zA-Z0-9_.-]*, at most 64 chars');
          peers[name] = readPeer(peer, name);
        }
        return peers;
      }),
    resolveSecretsIn: (peers, resolve) =>
      Object.fromEntries(
        Object.entries(peers).map(([name, p]) => [
          name,
          p.bearer === null ? p : { ...p, bearer: resolve(p.bearer, [name, 'bearer'], true) },
        ]),
      ),
  };
}

/** The step field naming what each integration kind reaches, and the config it must be in. */
const REACHES: Readonly<Record<string, { field: string; in: 'peers' | 'servers' | 'principals' }>> = {
  'a2a.send': { field: 'to', in: 'peers' },
  human: { field: 'to', in: 'principals' },
  'a2a.delegate': { field: 'peer', in: 'peers' },
  'mcp.resource': { field: 'server', in: 'servers' },
};

/** An agent step's literal `servers` names absent from `mcp.servers`. */
function agentServerProblems(workflow: string, step: StepDef, known: readonly string[]): string[] {
  const listed = Array.isArray(step.fields['servers']) ? (step.fields['servers'] as unknown[]) : [];
  return listed
    .filter((n) => typeof n === 'string' && !n.includes('{{') && !n.startsWith('CEL:') && !known.includes(n))
    .map(
      (n) =>
        `workflow "${workflow}" step "${step.id}": servers "${String(n)}" is not in mcp.servers (configured: ${known.join(', ') || 'none'})`,
    );
}

/**
 * Configured workflows' steps that name (literally, not by a template) a peer absent from `a2a.peers` or an MCP
 * server absent from `mcp.servers`: refused at load, naming workflow, step and field (producers reference §2.1).
 */
export function checkWorkflowReach(config: Readonly<Config>): string[] {
  const known = {
    peers: Object.keys(config.a2a.peers),
    servers: Object.keys(config.mcp.servers),
    principals: config.a2a.principals.map((p) => p.id),
  };
  const problems: string[] = [];
  for (const def of config.workflows)
    for (const step of everyStep(def.steps)) {
      if (step.kind === 'agent') problems.push(...agentServerProblems(def.name, step, known.servers));
      const reach = REACHES[step.kind];
      const name = reach && step.fields[reach.field];
      if (!reach || typeof name !== 'string' || name.includes('{{') || name.startsWith('CEL:')) continue;
      if (known[reach.in].includes(name)) continue;
      const where = reach.in === 'servers' ? 'mcp.servers' : `a2a.${reach.in}`;
      problems.push(
        `workflow "${def.name}" step "${step.id}": ${reach.field} "${name}" is not in ${where} (configured: ${known[reach.in].join(', ') || 'none'})`,
      );
    }
  return problems;
}
