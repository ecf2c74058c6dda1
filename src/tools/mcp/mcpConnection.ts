// One live connection to an MCP server (a stdio child or Streamable HTTP), shared by the supervisor and the worker.
// Tool-level problems come back as values (ToolAnswer); only connect and listTools reject. Transports load lazily.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerSpec } from '../../protocol/frames.js';
import { fetchAnsweringBrokenStreams } from './mcpHttpFetch.js';
import { shortReason, specSecrets, stderrHint } from './mcpReason.js';
import { McpResources } from './mcpResources.js';
import { asArguments, type ToolAnswer, toolValue } from './mcpValue.js';
import { signalProcess, stopProcess } from './stdioProcess.js';

/** reference §1.5: each server gets 60 s to connect and answer `initialize`. */
const MCP_CONNECT_TIMEOUT_MS = 60_000;
/** How long close() lets a stdio server exit on its own (stdin EOF) before SIGTERM (stdioProcess.ts). */
const CLOSE_GRACE_MS = 1_000;
const MAX_LIST_PAGES = 100;
/** How long a ping after a transport error may take before the connection counts as lost. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * What a stdio server's stderr does. Never mixed into our JSON-lines stderr by default: 'ignore' (default) keeps
 * only its last lines, for the reason of a failed connect; a function also gets every line; 'inherit' passes it on.
 */
export type McpStderr = 'ignore' | 'inherit' | ((line: string) => void);

/** How many stderr lines a stdio connection remembers for a connect failure's reason. */
const STDERR_TAIL_LINES = 20;

export interface McpConnectOptions {
  /** Default 60 s. */
  connectTimeoutMs?: number;
  /** `clientInfo.name` sent in `initialize`; default `agentd`. */
  clientName?: string;
  clientVersion?: string;
  /** Aborts the connect (the worker's cancel). */
  signal?: AbortSignal;
  /** stdio only; default 'ignore'. */
  stderr?: McpStderr;
}

export interface McpCallOptions {
  /** Sent as the request's `_meta` (idempotency key, tool_meta). */
  meta?: Record<string, unknown>;
  /** Enforced: the request is cancelled and the call answers a timeout error when it passes. */
  timeoutMs: number;
  /** Aborts the call (turn cancel or deadline); the answer is then a cancellation error. */
  signal?: AbortSignal;
}

/** A prompt or resource a skill source offers; `ref` is the prompt name or the resource URI. */
export interface McpSkillInfo {
  name: string;
  description: string;
  kind: 'prompt' | 'resource';
  ref: string;
}

/** One tool as a server lists it. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** A failed connect: `message` is the short reason; the caller adds `mcp '<server>': `. */
export class McpConnectError extends Error {
  override name = 'McpConnectError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

interface OpenedTransport {
  transport: Transport;
  /** The stdio child's pid while it runs; null for HTTP. */
  pid(): number | null;
  /** The last lines the stdio server wrote to stderr (empty for HTTP or 'inherit'). */
  stderrTail: string[];
}

const TIMED_OUT = new Error('timed out');
const CANCELLED = new Error('cancelled');

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts (a hung SDK promise included). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** An AbortController that aborts with TIMED_OUT after `ms`, or with CANCELLED when `outer` aborts. */
function boundedController(ms: number, outer?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(TIMED_OUT), ms);
  const onOuter = (): void => ctl.abort(CANCELLED);
  if (outer?.aborted) ctl.abort(CANCELLED);
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: ctl.signal,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

function isRequestTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

/** Reads the stderr pipe to its end (a full pipe would block the server), keeping the tail and forwarding lines. */
function readStderr(stream: Readable, tail: string[], onLine?: (line: string) => void): void {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => {
    tail.push(line);
    if (tail.length > STDERR_TAIL_LINES) tail.shift();
    try {
      onLine?.(line);
    } catch {
      // A logging callback never takes the connection down.
    }
  });
}

async function openTransport(spec: McpServerSpec, stderr: McpStderr): Promise<OpenedTransport> {
  if (spec.transport === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      // The SDK puts its own few defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER) under this env.
      env: spec.env,
      ...(spec.cwd !== null ? { cwd: spec.cwd } : {}),
      stderr: stderr === 'inherit' ? 'inherit' : 'pipe',
    });
    const stderrTail: string[] = [];
    const onLine = typeof stderr === 'function' ? stderr : undefined;
    if (transport.stderr) readStderr(transport.stderr as Readable, stderrTail, onLine);
    return { transport, pid: () => transport.pid, stderrTail };
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const url = new URL(spec.url);
  const transport: Transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: spec.headers },
    fetch: fetchAnsweringBrokenStreams((message) => transport.onmessage?.(message)),
  });
  return { transport, pid: () => null, stderrTail: [] };
}

function toolInfo(tool: Record<string, unknown> & { name: string }): McpToolInfo {
  const info: McpToolInfo = { name: tool.name, inputSchema: (tool.inputSchema ?? {}) as Record<string, unknown> };
  if (typeof tool.title === 'string') info.title = tool.title;
  if (typeof tool.description === 'string') info.description = tool.description;
  if (tool.outputSchema) info.outputSchema = tool.outputSchema as Record<string, unknown>;
  if (tool.annotations) info.annotations = tool.annotations as Record<string, unknown>;
  return info;
}

/** A connection to one MCP server; a resource with a lifecycle: connect → list/call → close. */
export class McpConnection {
  /** Resource subscriptions and reads (subscribe start nodes). */
  readonly resources: McpResources;
  private readonly toolsChanged = new Set<() => void>();
  private readonly closedListeners = new Set<(reason: string) => void>();
  private lost: string | null = null;
  private closing: Promise<void> | null = null;
  private probing = false;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly opened: OpenedTransport,
    private readonly secrets: string[],
  ) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      for (const cb of this.toolsChanged) cb();
    });
    client.onclose = () => this.markLost('connection closed');
    // An HTTP transport reports a server that went away (or restarted, forgetting the session) only as errors:
    // a ping tells a passing error from a lost connection.
    client.onerror = () => void this.probe();
    this.resources = new McpResources(client, secrets, (cb) => this.onClosed(cb));
  }

  /** Spawns or dials the server and completes `initialize`; rejects with a short McpConnectError. */
  static async connect(spec: McpServerSpec, opts: McpConnectOptions = {}): Promise<McpConnection> {
    const secrets = specSecrets(spec.transport === 'http' ? { headers: spec.headers } : { env: spec.env });
    const timeoutMs = opts.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
    const client = new Client(
      { name: opts.clientName ?? 'agentd', version: opts.clientVersion ?? '0.1.0' },
      { capabilities: {} },
    );
    const bound = boundedController(timeoutMs, opts.signal);
    let opened: OpenedTransport | undefined;
    try {
      opened = await openTransport(spec, opts.stderr ?? 'ignore');
      const connecting = client.connect(opened.transport, { timeout: timeoutMs, signal: bound.signal });
      await untilAborted(connecting, bound.signal);
      return new McpConnection(spec.name, client, opened, secrets);
    } catch (err) {
      const reason = bound.signal.reason ?? err;
      const pid = opened?.pid() ?? null;
      const closed = client.close().catch(() => {});
      await (pid === null ? Promise.race([closed, delay(CLOSE_GRACE_MS)]) : stopProcess(pid, 0));
      throw new McpConnectError(spec.name, connectReason(reason, timeoutMs, secrets, opened?.stderrTail ?? []));
    } finally {
      bound.dispose();
    }
  }

  /** Every tool the server lists, all pages. Rejects with a short reason. */
  async listTools(opts: { timeoutMs?: number } = {}): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const params = cursor === undefined ? undefined : { cursor };
        const answer = await this.client.listTools(params, { timeout: opts.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS });
        for (const tool of answer.tools) tools.push(toolInfo(tool));
        cursor = answer.nextCursor;
        if (cursor === undefined) break;
      }
    } catch (err) {
      throw new Error(`tools/list failed: ${shortReason(err, this.secrets)}`);
    }
    return tools;
  }

  /** The server's prompts and resources as skills (reference §8.4); a capability it lacks lists nothing. */
  async listSkills(opts: { timeoutMs?: number } = {}): Promise<McpSkillInfo[]> {
    const caps = this.client.getServerCapabilities() ?? {};
    const timeout = opts.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
    const skills: McpSkillInfo[] = [];
    try {
      if (caps.prompts) {
        for (const p of (await this.client.listPrompts(undefined, { timeout })).prompts) {
          skills.push({ name: p.name, description: p.description ?? '', kind: 'prompt', ref: p.name });
        }
      }
      if (caps.resources) {
        for (const r of (await this.client.listResources(undefined, { timeout })).resources) {
          skills.push({ name: r.name, description: r.description ?? '', kind: 'resource', ref: r.uri });
        }
      }
    } catch (err) {
      throw new Error(`skills list failed: ${shortReason(err, this.secrets)}`);
    }
    return skills;
  }

  /** A skill's body: a prompt's message texts, or a resource's text contents, joined by blank lines. */
  async readSkill(skill: Pick<McpSkillInfo, 'kind' | 'ref'>, opts: { timeoutMs: number }): Promise<string> {
    const texts: string[] = [];
    try {
      if (skill.kind === 'prompt') {
        const answer = await this.client.getPrompt({ name: skill.ref }, { timeout: opts.timeoutMs });
        for (const m of answer.messages) if (m.content.type === 'text') texts.push(m.content.text);
      } else {
        const answer = await this.client.readResource({ uri: skill.ref }, { timeout: opts.timeoutMs });
        for (const c of answer.contents) if ('text' in c && typeof c.text === 'string') texts.push(c.text);
      }
    } catch (err) {
      throw new Error(`skill read failed: ${shortReason(err, this.secrets)}`);
    }
    return texts.join('\n\n');
  }

  /** Calls `cb` on every `notifications/tools/list_changed`; returns the unsubscribe. */
  onToolsChanged(cb: () => void): () => void {
    this.toolsChanged.add(cb);
    return () => this.toolsChanged.delete(cb);
  }

  /** Calls `cb` once when the connection is lost (server exit, transport closed) or closed. */
  onClosed(cb: (reason: string) => void): () => void {
    this.closedListeners.add(cb);
    return () => this.closedListeners.delete(cb);
  }

  /** The stdio server's pid while it runs; null for HTTP or once it is gone. */
  get pid(): number | null {
    return this.opened.pid();
  }

  /** SIGKILLs a stdio server at once, for a process about to exit without time for close(). */
  killNow(): void {
    const pid = this.opened.pid();
    if (pid !== null) signalProcess(pid, 'SIGKILL');
  }

  /** Why the connection is gone, or null while it is usable. */
  get lostReason(): string | null {
    return this.lost;
  }

  /** Calls one tool; never throws. Timeout, cancel and transport failures are error answers. */
  async callTool(name: string, args: unknown, opts: McpCallOptions): Promise<ToolAnswer> {
    if (this.lost !== null) return { result: `tool transport error: ${this.lost}`, is_error: true };
    const argObject = asArguments(args);
    if (argObject === null) return { result: 'tool arguments must be a JSON object', is_error: true };
    const timeoutMs = Math.max(1, Math.round(opts.timeoutMs));
    const bound = boundedController(timeoutMs, opts.signal);
    const params = { name, arguments: argObject, ...(opts.meta ? { _meta: opts.meta } : {}) };
    try {
      const calling = this.client.callTool(params, undefined, { timeout: timeoutMs, signal: bound.signal });
      return toolValue(await untilAborted(calling, bound.signal));
    } catch (err) {
      const why = bound.signal.reason;
      if (why === TIMED_OUT || (why === undefined && isRequestTimeout(err))) {
        return { result: `tool timed out after ${timeoutMs} ms`, is_error: true };
      }
      if (why === CANCELLED) return { result: cancelText(opts.signal?.reason), is_error: true };
      return { result: `tool transport error: ${shortReason(err, this.secrets)}`, is_error: true };
    } finally {
      bound.dispose();
    }
  }

  /**
   * Closes the session. A stdio server gets `graceMs` to exit after its stdin closes, then SIGTERM, then SIGKILL;
   * the returned promise settles once the process is gone (bounded). Idempotent.
   */
  close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    if (this.closing) return this.closing;
    const pid = this.opened.pid();
    this.closing = (async () => {
      const closed = this.client.close().catch(() => {});
      if (pid === null) await Promise.race([closed, delay(graceMs)]);
      else await stopProcess(pid, graceMs);
      this.markLost('connection closed');
    })();
    return this.closing;
  }

  /** After a transport error: a failed ping marks the connection lost and closes it (its next use reconnects). */
  private async probe(): Promise<void> {
    if (this.lost !== null || this.probing || this.closing) return;
    this.probing = true;
    try {
      await this.client.ping({ timeout: PROBE_TIMEOUT_MS });
    } catch (err) {
      this.markLost(`connection lost: ${shortReason(err, this.secrets)}`);
      await this.close().catch(() => {});
    } finally {
      this.probing = false;
    }
  }

  private markLost(reason: string): void {
    if (this.lost !== null) return;
    this.lost = reason;
    for (const cb of this.closedListeners) cb(reason);
  }
}

/** `tool call cancelled`, or the caller's own reason when it gave one (e.g. the turn deadline passed). */
function cancelText(reason: unknown): string {
  const own = reason instanceof Error && reason.name !== 'AbortError' ? reason.message : '';
  return own ? `tool call aborted: ${own}` : 'tool call cancelled';
}

function connectReason(err: unknown, timeoutMs: number, secrets: string[], stderrTail: string[]): string {
  if (err === TIMED_OUT || isRequestTimeout(err)) return `no answer to initialize within ${timeoutMs} ms`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    const hint = stderrHint(stderrTail);
    const reason = 'the server closed the connection during initialize';
    return hint === null ? reason : shortReason(`${reason} (stderr: ${hint})`, secrets);
  }
  if (err === CANCELLED) return 'connect cancelled';
  return shortReason(err, secrets);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
