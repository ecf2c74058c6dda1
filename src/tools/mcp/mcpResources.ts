// One MCP connection's resources as the triggers use them (producers reference §3.6): `resources/subscribe` with a
// callback per URI on `notifications/resources/updated`, and reads of a resource's text. Owns only the callbacks;
// the connection owns the client.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DaemonError } from '../../errors.js';
import { shortReason } from './mcpReason.js';

/** What a completion is for: a prompt by name or a resource template by URI. */
export type CompleteRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export class McpResources {
  readonly #watchers = new Map<string, Set<() => void>>();

  constructor(
    private readonly client: Client,
    private readonly secrets: string[],
    /** Calls `cb` once when the connection is lost (its subscriptions with it); returns the unsubscribe. */
    readonly onClosed: (cb: (reason: string) => void) => () => void,
  ) {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      for (const cb of this.#watchers.get(note.params.uri) ?? []) cb();
    });
  }

  /**
   * Subscribes to `uri` (one `resources/subscribe` per URI however many watch it); `cb` runs on each update.
   * Resolves with the unsubscribe; rejects with a short reason (the server offers no subscriptions, or refused).
   */
  async subscribe(uri: string, cb: () => void, timeoutMs: number): Promise<() => void> {
    if (!this.client.getServerCapabilities()?.resources?.subscribe)
      throw new Error('the server offers no resource subscriptions (capabilities.resources.subscribe)');
    let watchers = this.#watchers.get(uri);
    if (!watchers) {
      try {
        await this.client.subscribeResource({ uri }, { timeout: timeoutMs });
      } catch (err) {
        const message = `resources/subscribe failed: ${shortReason(err, this.secrets)}`;
        // The server's own answer is a refusal; no answer (the connection went away) is worth trying again.
        const refused = err instanceof McpError && err.code !== ErrorCode.ConnectionClosed;
        throw refused ? new Error(message) : new DaemonError('mcp_unreachable', message, true);
      }
      watchers = this.#watchers.get(uri) ?? new Set();
      this.#watchers.set(uri, watchers);
    }
    watchers.add(cb);
    return () => {
      watchers.delete(cb);
      if (watchers.size > 0 || this.#watchers.get(uri) !== watchers) return;
      this.#watchers.delete(uri);
      this.client.unsubscribeResource({ uri }).catch(() => {}); // the connection may be gone: nothing to undo
    };
  }

  /** Every resource the server lists (cursor pages followed, at most `max`). Rejects with a short reason. */
  async list(timeoutMs: number, max = 1000): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await this.client.listResources(cursor ? { cursor } : {}, { timeout: timeoutMs });
        out.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor && out.length < max);
    } catch (err) {
      throw new Error(`resources/list failed: ${shortReason(err, this.secrets)}`);
    }
    return out.slice(0, max);
  }

  /** prompts/get: the prompt `name` rendered with `args`, `{description, messages}`. Rejects with a short reason. */
  async prompt(name: string, args: Record<string, string>, timeoutMs: number): Promise<unknown> {
    try {
      const got = await this.client.getPrompt({ name, arguments: args }, { timeout: timeoutMs });
      return { description: got.description ?? null, messages: got.messages };
    } catch (err) {
      throw new Error(`prompts/get failed: ${shortReason(err, this.secrets)}`);
    }
  }

  /** completion/complete for a prompt's or resource template's argument: `{values, total, hasMore}`. */
  async complete(ref: CompleteRef, argument: { name: string; value: string }, timeoutMs: number): Promise<unknown> {
    try {
      const got = await this.client.complete({ ref, argument }, { timeout: timeoutMs });
      return got.completion;
    } catch (err) {
      throw new Error(`completion/complete failed: ${shortReason(err, this.secrets)}`);
    }
  }

  /** The resource's text contents, joined by newlines. Rejects with a short reason. */
  async read(uri: string, timeoutMs: number): Promise<string> {
    try {
      const answer = await this.client.readResource({ uri }, { timeout: timeoutMs });
      return answer.contents.flatMap((c) => ('text' in c && typeof c.text === 'string' ? [c.text] : [])).join('\n');
    } catch (err) {
      throw new Error(`resources/read failed: ${shortReason(err, this.secrets)}`);
    }
  }
}
