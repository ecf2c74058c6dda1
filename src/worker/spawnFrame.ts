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

/** Validates the first frame; the result is the payload or a one-line reason. */
export function readSpawnFrame(frame: unknown): SpawnCheck {
  if (!isRecord(frame)) return { ok: false, error: 'the first frame is not an object' };
  if (frame.type !== 'spawn') return { ok: false, error: `the first frame is '${String(frame.type)}', not 'spawn'` };
  if (frame.version !== PROTOCOL_VERSION) {
    return { ok: false, error: `protocol version ${String(frame.version)}; this worker speaks ${PROTOCOL_VERSION}` };
  }
  const shapeError = firstShapeError(frame);
  if (shapeError) return { ok: false, error: shapeError };
  const turn = frame.turn as Record<string, unknown>;
  if (turn.kind !== 'turn' && turn.kind !== 'think') return { ok: false, error: "turn.kind is not 'turn' or 'think'" };
  const { type: _type, ...payload } = frame;
  return { ok: true, payload: payload as unknown as SpawnPayload };
}
