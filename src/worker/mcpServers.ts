// The worker's MCP connections (reference §1.5 step 6, §11.4): connect every server of the turn's plan before any
// model call, dial calls through them, close them when the worker exits (a reused worker keeps them between
// turns). The MCP client is imported only when a turn has servers, so a turn without MCP never pays its import.
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { McpServerSpec } from '../protocol/frames.js';
import type { McpConnection } from '../tools/mcp/mcpConnection.js';
import type { CallMcp } from './toolRunner.js';

/** The turn's live connections: the `callMcp` seam of the round loop, and their teardown. */
export interface WorkerMcp {
  callMcp: CallMcp;
  /** Closes every connection; stdio servers get `graceMs` to exit on stdin EOF before they are signalled. */
  close(graceMs: number): Promise<void>;
  /** SIGKILLs every stdio server at once (the worker is exiting without a turn end). */
  killNow(): void;
}

export type McpStartup =
  | { ok: true; mcp: WorkerMcp }
  /** `interrupted`: the signal aborted the connects (cancel or deadline), not a server failure. */
  | { ok: false; error: string; interrupted: boolean };

export interface McpStartOptions {
  /** Aborts every connect (cancel, turn deadline). */
  signal: AbortSignal;
  log: Logger;
  /** Per server; default 60 s. */
  connectTimeoutMs?: number;
  /**
   * This worker's connections from earlier turns, by server spec: a live one with the same spec is used again
   * (no connect), a new one is added. Tool lists stay per turn: the turn's plan decides what the model sees.
   */
  kept?: Map<string, McpConnection>;
}

/** Close and kill over every connection of `connections` (a turn's, or all a worker keeps). */
export function workerMcp(connections: ReadonlyMap<string, McpConnection>): WorkerMcp {
  return {
    callMcp: (call) => {
      const connection = connections.get(call.server);
      if (!connection) {
        return Promise.resolve({ result: `tool transport error: no connection to '${call.server}'`, is_error: true });
      }
      const { meta, timeoutMs, signal } = call;
      return connection.callTool(call.tool, call.args, { meta, timeoutMs, signal });
    },
    close: async (graceMs) => {
      await Promise.all([...connections.values()].map((c) => c.close(graceMs)));
    },
    killNow: () => {
      for (const c of connections.values()) c.killNow();
    },
  };
}

/**
 * Connects to every server in parallel. The first failure aborts the others and yields
 * `mcp '<name>': <reason>`; connections already open are closed before this returns.
 */
export async function startMcp(specs: readonly McpServerSpec[], opts: McpStartOptions): Promise<McpStartup> {
  const connections = new Map<string, McpConnection>();
  if (specs.length === 0) return { ok: true, mcp: workerMcp(connections) };
  let McpConnection: typeof import('../tools/mcp/mcpConnection.js').McpConnection;
  try {
    ({ McpConnection } = await import('../tools/mcp/mcpConnection.js'));
  } catch (err) {
    return { ok: false, error: `mcp: cannot load the MCP client: ${describeError(err)}`, interrupted: false };
  }
  const abort = new AbortController();
  const onOuter = (): void => abort.abort();
  opts.signal.addEventListener('abort', onOuter, { once: true });
  if (opts.signal.aborted) abort.abort();
  const first: { failure?: { server: string; reason: string } } = {};
  const connectOpts = { signal: abort.signal, connectTimeoutMs: opts.connectTimeoutMs, clientName: 'agentd-worker' };
  try {
    await Promise.all(
      specs.map(async (spec) => {
        const key = JSON.stringify(spec);
        const old = opts.kept?.get(key);
        if (old && old.lostReason === null) {
          connections.set(spec.name, old);
          return;
        }
        try {
          const connection = await McpConnection.connect(spec, connectOpts);
          connections.set(spec.name, connection);
          opts.kept?.set(key, connection);
        } catch (err) {
          if (first.failure) return;
          first.failure = { server: spec.name, reason: err instanceof Error ? err.message : String(err) };
          abort.abort();
        }
      }),
    );
  } finally {
    opts.signal.removeEventListener('abort', onOuter);
  }
  if (!first.failure) return { ok: true, mcp: workerMcp(connections) };
  const { server, reason } = first.failure;
  const interrupted = opts.signal.aborted;
  if (!interrupted) opts.log.error('mcp.unreachable', { server, err: reason });
  await workerMcp(connections).close(0);
  const closed = new Set(connections.values());
  for (const [key, connection] of opts.kept ?? []) if (closed.has(connection)) opts.kept?.delete(key);
  return { ok: false, error: `mcp '${server}': ${reason}`, interrupted };
}
