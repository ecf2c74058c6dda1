// The agent card served at `/.well-known/agent-card.json` (reference §17.3): who this instance is, where its
// JSON-RPC interface listens, and how to authenticate. Built from config and the bound URL; no I/O. The card is
// unauthenticated: its description comes from `a2a.card.description`, never from `agent.instruction`.
import type { AgentCard, SecurityScheme } from '@a2a-js/sdk';
import { A2A_DEFAULTS } from '../config/a2aKeys.js';
import type { A2aConfig } from '../config/types.js';

/** The instance the card describes: `agent.name` (the card's name unless `a2a.card.name` is set) and version. */
export interface InstanceInfo {
  name: string;
  version: string;
}

export const PROTOCOL_VERSION = '1.0';
const DEFAULT_DESCRIPTION = A2A_DEFAULTS.card_description;
const BEARER_SCHEME = 'bearer';

/** The public card; `url` is the listener's bound URL. Bearer principals add an HTTP bearer security scheme. */
export function buildAgentCard(
  instance: InstanceInfo,
  url: string,
  a2a: Pick<A2aConfig, 'principals' | 'card'>,
): AgentCard {
  const bearer = a2a.principals.some((p) => 'bearer' in p.match);
  const scheme: SecurityScheme = {
    scheme: {
      $case: 'httpAuthSecurityScheme',
      value: { description: 'A token from a2a.principals', scheme: 'Bearer', bearerFormat: '' },
    },
  };
  return {
    name: a2a.card.name ?? instance.name,
    description: a2a.card.description.trim() === '' ? DEFAULT_DESCRIPTION : a2a.card.description,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: PROTOCOL_VERSION }],
    provider: undefined,
    version: instance.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: true },
    securitySchemes: bearer ? { [BEARER_SCHEME]: scheme } : {},
    securityRequirements: bearer ? [{ schemes: { [BEARER_SCHEME]: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'chat',
        name: 'Chat',
        description: 'Send a message; the agent works on it with its tools and replies.',
        tags: ['chat'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
