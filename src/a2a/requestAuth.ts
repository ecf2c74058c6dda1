// Who sent an HTTP request to the listener: one function for every route (JSON-RPC, the feed, and any route a
// client UI adds), so each authenticates alike (reference §17.3). A cookie session would extend this one place.
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { A2aConfig } from '../config/types.js';
import { headerOf } from './httpIo.js';
import { type Authentication, authenticate } from './principals.js';

/** The request's principal (bearer token, `any`, or the loopback operator), or why it is refused. */
export function authenticateRequest(a2a: Readonly<A2aConfig>, req: IncomingMessage): Authentication {
  const authorization = headerOf(req, 'authorization');
  const origin = headerOf(req, 'origin');
  return authenticate(a2a, {
    remoteLoopback: isLoopbackHost(req.socket.remoteAddress ?? ''),
    ...(authorization === undefined ? {} : { authorization }),
    ...(origin === undefined ? {} : { origin }),
  });
}
