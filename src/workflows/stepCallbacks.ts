// The `wait on: webhook` callback routes (producers reference §3.7): one-off routes on the listener's webhook
// routes, their auth's `{{secret:…}}` resolved only when a route opens (never stored), answered 200 `resumed` once
// the hit is held on the run.
import type { ProducerContext } from '../runtime/producer.js';
import type { WebhookRoute } from '../triggers/webhookPolicy.js';
import type { StepCallbacks } from './nodeKind.js';
import { authOf } from './startFields.js';

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** The A2A listener's bound URL, or null while it is not listening. */
    listener_url(): string | null;
  }
}

/** The callbacks port over the runtime's webhook routes, or undefined when this process has none. */
export function stepCallbacks(ctx: ProducerContext, secret: (text: string) => string): StepCallbacks | undefined {
  const routes = ctx.webhooks;
  if (!routes) return undefined;
  const url = (path: string): string | null => {
    const base = ctx.ports.port('listener_url')?.() ?? null;
    return base === null ? null : `${base.replace(/\/$/, '')}${path}`;
  };
  return {
    url,
    open: ({ path, methods, auth, id, run, onHit }) => {
      const route: WebhookRoute = { id, path, auth: authOf(auth, secret), respond: 'resume' };
      if (methods) route.methods = methods.map((m) => m.toUpperCase());
      routes.register(route, {
        fire: async (_trigger, _at, key, payload) => {
          await onHit(payload, key);
          ctx.log.info('webhook.callback', { run, path });
        },
      });
      ctx.log.info('webhook.await.armed', { run, path, url: url(path) });
      return () => routes.unregister(path);
    },
  };
}
