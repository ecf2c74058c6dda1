// The agent card served at `/.well-known/agent-card.json` (reference §17.3): who this instance is, where its
// JSON-RPC interface listens, and how to authenticate. Built from config and the bound URL; no I/O.
import type { AgentCard, SecurityScheme } from '@a2a-js/sdk';
import type { A2aConfig } from '../config/types.js';

/** The instance the card describes. */
export interface InstanceInfo {
  name: string;
  description: string;
  version: string;
}

export const PROTOCOL_VERSION = '1.0';
const DEFAULT_DESCRIPTION = 'agentd: a durable agent daemon';
const BEARER_SCHEME = 'bearer';

/** The public card; `url` is the listener's bound URL. Bearer principals add an HTTP bearer security scheme. */
export function buildAgentCard(instance: InstanceInfo, url: string, a2a: Pick<A2aConfig, 'principals'>): AgentCard {
  const bearer = a2a.principals.some((p) => 'bearer' in p.match);
  const scheme: SecurityScheme = {
    scheme: {
      $case: 'httpAuthSecurityScheme',
      value: { description: 'A token from a2a.principals', scheme: 'Bearer', bearerFormat: '' },
    },
  };
  return {
    name: instance.name,
    description: instance.description.trim() === '' ? DEFAULT_DESCRIPTION : instance.description,
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
