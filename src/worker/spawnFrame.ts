// Checks the first frame a worker reads: a `spawn` of our protocol version with the fields the turn needs.
// Pure. Error texts name fields only, never values (the payload carries the model token).
import type { SpawnPayload } from '../protocol/frames.js';
import { PROTOCOL_VERSION } from '../protocol/frames.js';

export type SpawnCheck = { ok: true; payload: SpawnPayload } | { ok: false; error: string };

type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'string|null';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isRecord(v);
    case 'string|null':
      return v === null || typeof v === 'string';
    default:
      return typeof v === kind;
  }
}

const SHAPE: Record<'intelligence' | 'limits' | 'telemetry' | 'turn', Record<string, Kind>> = {
  intelligence: {
    endpoints: 'array',
    token: 'string|null',
    model: 'string',
    dialect: 'string',
    headers: 'array',
    timeout_ms: 'number',
  },
  limits: { max_steps: 'number', max_tokens: 'number', deadline_ms: 'number' },
  telemetry: { agent_path: 'string', log_level: 'string' },
  turn: {
    kind: 'string',
    system: 'string',
    messages: 'array',
    tools: 'array',
    internal: 'array',
    mcp_routes: 'object',
    max_rounds: 'number',
    budget_admission: 'boolean',
    idempotency_prefix: 'string',
    max_tokens_per_call: 'number',
    turn_id: 'string',
  },
};

function firstShapeError(frame: Record<string, unknown>): string | null {
  for (const [section, fields] of Object.entries(SHAPE)) {
    const value = frame[section];
    if (!isRecord(value)) return `spawn frame has no '${section}' object`;
    for (const [field, kind] of Object.entries(fields)) {
      if (!hasKind(value[field], kind)) return `spawn frame field '${section}.${field}' is not ${kind}`;
    }
  }
  return null;
}

const SERVER_SHAPE: Record<'stdio' | 'http', Record<string, Kind>> = {
  stdio: { name: 'string', command: 'string', args: 'array', env: 'object', cwd: 'string|null' },
  http: { name: 'string', url: 'string', headers: 'object' },
};

const allStrings = (values: unknown[]): boolean => values.every((v) => typeof v === 'string');

/** One `mcp_servers` entry: its transport's fields, with string args, env values and header values. */
function serverError(server: unknown, at: string): string | null {
  if (!isRecord(server)) return `spawn frame field '${at}' is not object`;
  if (server.transport !== 'stdio' && server.transport !== 'http') {
    return `spawn frame field '${at}.transport' is not 'stdio' or 'http'`;
  }
  for (const [field, kind] of Object.entries(SERVER_SHAPE[server.transport])) {
    if (!hasKind(server[field], kind)) return `spawn frame field '${at}.${field}' is not ${kind}`;
  }
  const strings: Array<[string, unknown[]]> =
    server.transport === 'stdio'
      ? [
          ['args', server.args as unknown[]],
          ['env', Object.values(server.env as object)],
        ]
      : [['headers', Object.values(server.headers as object)]];
  for (const [field, values] of strings) {
    if (!allStrings(values)) return `spawn frame field '${at}.${field}' holds a value that is not a string`;
  }
  return null;
}

/** `mcp_servers` (absent ⇒ none) and `code_tools_module` (absent ⇒ null). */
function checkTurnResources(frame: Record<string, unknown>): string | null {
  const servers = frame.mcp_servers ?? [];
  if (!Array.isArray(servers)) return "spawn frame field 'mcp_servers' is not array";
  for (const [i, server] of servers.entries()) {
    const error = serverError(server, `mcp_servers[${i}]`);
    if (error) return error;
  }
  if (!hasKind(frame.code_tools_module ?? null, 'string|null')) {
    return "spawn frame field 'code_tools_module' is not string|null";
  }
  const redact = frame.redact ?? [];
  if (!Array.isArray(redact) || !allStrings(redact)) return "spawn frame field 'redact' is not a list of strings";
  return null;
}

/** Validates the first frame; the result is the payload or a one-line reason. */
export function readSpawnFrame(frame: unknown): SpawnCheck {
  if (!isRecord(frame)) return { ok: false, error: 'the first frame is not an object' };
  if (frame.type !== 'spawn') return { ok: false, error: `the first frame is '${String(frame.type)}', not 'spawn'` };
  if (frame.version !== PROTOCOL_VERSION) {
    return { ok: false, error: `protocol version ${String(frame.version)}; this worker speaks ${PROTOCOL_VERSION}` };
  }
  const shapeError = firstShapeError(frame) ?? checkTurnResources(frame);
  if (shapeError) return { ok: false, error: shapeError };
  const turn = frame.turn as Record<string, unknown>;
  if (turn.kind !== 'turn' && turn.kind !== 'think') return { ok: false, error: "turn.kind is not 'turn' or 'think'" };
  const { type: _type, ...payload } = frame;
  payload.mcp_servers ??= [];
  payload.code_tools_module ??= null;
  return { ok: true, payload: payload as unknown as SpawnPayload };
}
