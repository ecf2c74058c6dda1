// The `a2a.peers` key: agents the workflow steps `a2a.send` / `a2a.delegate` may reach, by name. Pure: shapes and
// validates; a bearer resolves `{{secret:NAME}}` and is redacted from events. Private addresses are refused when
// the step sends unless the peer sets `allow_private` (the check needs DNS, so it runs at send time).

import type { A2aPeerConfig } from './a2aTypes.js';
import type { ValueKind } from './kinds.js';
import { showValue } from './kinds.js';
import { closedMapping, isMapping, nameAt, problemAt, shaped, textAt } from './mappings.js';

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
