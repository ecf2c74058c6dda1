// The A2A 1.0 JSON-RPC methods and the shape of their params, checked before the SDK's lenient proto-JSON
// decoding (which turns `{"id": 42}` into "42" silently). Pure: a problem text, or null when the params fit.

/** Methods the listener serves; any other name is -32601. */
export const A2A_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
] as const;

export type A2aMethod = (typeof A2A_METHODS)[number];

/** Methods answered with a `text/event-stream`. */
export const STREAMING_METHODS: ReadonlySet<A2aMethod> = new Set(['SendStreamingMessage', 'SubscribeToTask']);

export function isA2aMethod(name: string): name is A2aMethod {
  return (A2A_METHODS as readonly string[]).includes(name);
}

/** A check of one value at a place (`params.message.parts[0].text`); a problem text or null. */
type Check = (value: unknown, at: string) => string | null;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const str: Check = (v, at) => (typeof v === 'string' ? null : `${at}: expected a string`);
const bool: Check = (v, at) => (typeof v === 'boolean' ? null : `${at}: expected true or false`);
const anyObject: Check = (v, at) => (isObject(v) ? null : `${at}: expected an object`);
const anyValue: Check = () => null;
const nonEmpty: Check = (v, at) =>
  str(v, at) ?? ((v as string).trim() === '' ? `${at}: expected a non-empty string` : null);

function int(min: number, max = Number.MAX_SAFE_INTEGER): Check {
  return (v, at) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? null
      : `${at}: expected an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`;
}

/** Proto-JSON enums come as their name or their number. */
const enumValue: Check = (v, at) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? null : `${at}: expected an enum name`;

function list(item: Check): Check {
  return (v, at) => {
    if (!Array.isArray(v)) return `${at}: expected a list`;
    for (const [i, entry] of v.entries()) {
      const problem = item(entry, `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  };
}

/** An object whose listed fields, when present (and not null), pass their checks; `required` must be present. */
function shape(fields: Record<string, Check>, required: readonly string[] = []): Check {
  return (v, at) => {
    if (!isObject(v)) return `${at}: expected an object`;
    for (const name of required) if (v[name] === undefined || v[name] === null) return `${at}.${name}: required`;
    for (const [name, check] of Object.entries(fields)) {
      const value = v[name];
      if (value === undefined || value === null) continue;
      const problem = check(value, `${at}.${name}`);
      if (problem) return problem;
    }
    return null;
  };
}

const CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;

const partFields = shape({
  text: str,
  raw: str,
  url: str,
  data: anyValue,
  metadata: anyObject,
  filename: str,
  mediaType: str,
});

const part: Check = (v, at) => {
  const problem = partFields(v, at);
  if (problem) return problem;
  const given = CONTENT_FIELDS.filter((name) => (v as Record<string, unknown>)[name] !== undefined);
  if (given.length !== 1) return `${at}: expected exactly one of ${CONTENT_FIELDS.join(', ')}`;
  return null;
};

const message = shape(
  {
    messageId: str,
    contextId: str,
    taskId: str,
    role: enumValue,
    parts: list(part),
    metadata: anyObject,
    extensions: list(str),
    referenceTaskIds: list(str),
  },
  ['parts'],
);

const sendParams = shape(
  {
    tenant: str,
    message,
    configuration: shape({
      acceptedOutputModes: list(str),
      taskPushNotificationConfig: anyObject,
      historyLength: int(0),
      returnImmediately: bool,
    }),
    metadata: anyObject,
  },
  ['message'],
);

const taskIdParams = (extra: Record<string, Check> = {}): Check =>
  shape({ tenant: str, id: nonEmpty, ...extra }, ['id']);

const PARAMS: Readonly<Record<A2aMethod, Check>> = {
  SendMessage: sendParams,
  SendStreamingMessage: sendParams,
  GetTask: taskIdParams({ historyLength: int(0) }),
  ListTasks: shape({
    tenant: str,
    contextId: str,
    status: enumValue,
    pageSize: int(1, 100),
    pageToken: str,
    historyLength: int(0),
    statusTimestampAfter: str,
    includeArtifacts: bool,
  }),
  CancelTask: taskIdParams({ metadata: anyObject }),
  SubscribeToTask: taskIdParams(),
  GetExtendedAgentCard: shape({ tenant: str }),
  CreateTaskPushNotificationConfig: anyObject,
  GetTaskPushNotificationConfig: anyObject,
  ListTaskPushNotificationConfigs: anyObject,
  DeleteTaskPushNotificationConfig: anyObject,
};

/** Why `params` does not fit `method` (`params.id: expected a string`), or null. Absent params fit only the card. */
export function paramsProblem(method: A2aMethod, params: unknown): string | null {
  if (params === undefined && method === 'GetExtendedAgentCard') return null;
  return PARAMS[method](params, 'params');
}
