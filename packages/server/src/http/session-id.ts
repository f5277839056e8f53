import type { FastifyRequest } from 'fastify';
import { ServerError } from '../errors.js';

/** Where a request may name its session, in the order the answer to a conflict lists them. */
const PLACES = ['the X-Session-Id header', '`session_id` in the body', '`session_id` in the query'] as const;

/**
 * The session a request names: the `X-Session-Id` header (what a load balancer routes on),
 * `session_id` in the JSON body, or `session_id` in the query string. Any one of them is enough;
 * several are accepted when they agree, and a request whose places name different sessions is
 * refused (422) rather than routed by a precedence rule the client may not expect.
 */
export function sessionIdOf(request: FastifyRequest, body: Record<string, unknown> | undefined): string | undefined {
  const header = request.headers['x-session-id'];
  const query = (request.query as Record<string, unknown> | undefined)?.session_id;
  const given = [Array.isArray(header) ? header[0] : header, body?.session_id, Array.isArray(query) ? query[0] : query];
  const named: Array<{ place: string; id: string }> = [];
  given.forEach((value, index) => {
    if (value === undefined || value === null) return;
    if (typeof value !== 'string') throw new ServerError('DG_INVALID_REQUEST', `The session id in ${PLACES[index]} must be a string (got ${JSON.stringify(value)}).`, 422);
    named.push({ place: PLACES[index] as string, id: value });
  });
  const first = named[0];
  const other = named.find((entry) => entry.id !== first?.id);
  if (first && other) {
    throw new ServerError('DG_INVALID_REQUEST', `${first.place} (${first.id}) and ${other.place} (${other.id}) name different sessions: name one session, in any one of these places.`, 422, {
      issues: named.map((entry) => `${entry.place}: ${entry.id}`),
    });
  }
  return first?.id;
}

/** The session a request must name (step, fork, close, state). */
export function requiredSessionId(request: FastifyRequest, body: Record<string, unknown> | undefined): string {
  const id = sessionIdOf(request, body);
  if (id === undefined) throw new ServerError('DG_INVALID_REQUEST', "Name the session: `session_id` (from the reset's answer) in the body or query, or the X-Session-Id header.", 422);
  return id;
}

/** `body` without its `session_id` (named separately, see sessionIdOf). */
export function withoutSessionId(body: Record<string, unknown>): Record<string, unknown> {
  const { session_id: _id, ...rest } = body;
  return rest;
}
