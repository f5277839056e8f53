import { exceedsDepth } from '@debug-gym/core';
import type { WebSocket } from 'ws';
import { ServerError } from '../errors.js';
import type { EnvService } from '../service/env-service.js';
import { withoutSessionId } from './session-id.js';
import { errorReply } from '../service/error-reply.js';
import type { ServedSession } from '../session/served-session.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { MAX_REQUEST_DEPTH } from './limits.js';

/** OpenEnv's WebSocket error codes (`{type: "error", data: {code, message}}`); `error_code` carries debug-gym's own. */
type WsErrorCode = 'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED' | 'SESSION_ERROR';

/** Close code for a session the server ended (idle TTL, shutdown): the reason says which. */
export const SESSION_ENDED_CLOSE_CODE = 4000;

function wsCode(status: number, code: string): WsErrorCode {
  if (code === 'DG_SERVER_FULL') return 'CAPACITY_REACHED';
  if (code === 'DG_MALFORMED_JSON') return 'INVALID_JSON';
  if (code === 'DG_UNKNOWN_MESSAGE_TYPE') return 'UNKNOWN_TYPE';
  if (status === 400 || status === 422) return 'VALIDATION_ERROR';
  if (status === 404 || status === 409 || status === 410) return 'SESSION_ERROR';
  return 'EXECUTION_ERROR';
}

export interface WsContext {
  service: EnvService;
  registry: SessionRegistry;
  maxBodyBytes: number;
  /** Record a refused message (metrics) and log internal failures. */
  onError(reply: ReturnType<typeof errorReply>): void;
  /** Sockets by session id, so a session closed by the server closes its socket. */
  sockets: Map<string, WebSocket>;
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

/**
 * One WebSocket connection is one session (OpenEnv's `/ws`): messages `{type: "reset", data}`,
 * `{type: "step", data: {name, arguments} | {action, timeout_s}}`, `{type: "state"}`,
 * `{type: "fork"}` (a new session, reached over HTTP by its id), `{type: "close"}`, handled one at a
 * time in order. Closing the socket closes the session (not the sessions forked off it).
 */
export function serveWebSocket(socket: WebSocket, context: WsContext): void {
  const fail = (error: unknown): void => {
    const reply = errorReply(error, context.maxBodyBytes);
    context.onError(reply);
    const { code, message, ...details } = reply.body.error;
    send(socket, { type: 'error', data: { code: wsCode(reply.status, code), message, error_code: code, status: reply.status, ...details } });
  };
  let session: ServedSession;
  try {
    session = context.registry.open('ws');
  } catch (error) {
    fail(error);
    socket.close(1013, 'server full: try again later');
    return;
  }
  context.sockets.set(session.id, socket);
  let queue: Promise<void> = Promise.resolve();
  socket.on('message', (data, isBinary) => {
    queue = queue.then(() => handle(session, isBinary ? null : data.toString(), context, socket).catch(fail));
  });
  socket.on('close', () => {
    context.sockets.delete(session.id);
    void context.registry.close(session, 'its WebSocket closed').catch(() => undefined);
  });
}

async function handle(session: ServedSession, text: string | null, context: WsContext, socket: WebSocket): Promise<void> {
  let message: unknown;
  try {
    if (text === null) throw new SyntaxError('binary frames are not accepted');
    message = JSON.parse(text);
  } catch (error) {
    throw new ServerError('DG_MALFORMED_JSON', `The message is not valid JSON (${(error as Error).message}): send text frames like {"type": "step", "data": {"name": "view", "arguments": {"path": "app.py"}}}.`, 400);
  }
  if (exceedsDepth(message, MAX_REQUEST_DEPTH)) throw new ServerError('DG_MALFORMED_REQUEST', `The message is nested too deeply (more than ${MAX_REQUEST_DEPTH} levels).`, 400);
  if (!message || typeof message !== 'object' || Array.isArray(message)) throw new ServerError('DG_INVALID_REQUEST', 'A message is an object {"type": "reset" | "step" | "state" | "fork" | "close", "data": {...}}.', 422);
  const { type, data = {} } = message as { type?: unknown; data?: unknown };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ServerError('DG_INVALID_REQUEST', '`data` must be an object.', 422);
  const body = data as Record<string, unknown>;
  switch (type) {
    case 'reset': {
      // One connection is one session: `session_id` may repeat its id, never name another.
      if (body.session_id !== undefined && body.session_id !== session.id) {
        throw new ServerError('DG_INVALID_REQUEST', `This WebSocket is session '${session.id}': a reset on it cannot name session ${JSON.stringify(body.session_id)} (open another connection for another session, or leave session_id out).`, 422);
      }
      send(socket, { type: 'observation', data: await context.service.reset(withoutSessionId(body), session.id, 'ws') });
      return;
    }
    case 'step':
      send(socket, { type: 'observation', data: await context.service.step(session, stepBody(body)) });
      return;
    case 'state':
      send(socket, { type: 'state', data: context.service.state(session) });
      return;
    case 'fork':
      send(socket, { type: 'fork', data: await context.service.fork(session, body) });
      return;
    case 'close':
      // The socket closes with 1000 here, not with the code of a session the server ended.
      context.sockets.delete(session.id);
      await context.registry.close(session, 'closed by the client');
      socket.close(1000, 'session closed');
      return;
    default:
      throw new ServerError('DG_UNKNOWN_MESSAGE_TYPE', `Unknown message type ${JSON.stringify(type)}: use reset, step, state, fork or close.`, 422);
  }
}

/** OpenEnv sends the action itself as `data`; `{action, timeout_s, reply}` is accepted as well. */
function stepBody(data: Record<string, unknown>): Record<string, unknown> {
  if ('action' in data) return data;
  const { timeout_s, request_id, reply, include, ...action } = data;
  return Object.fromEntries(Object.entries({ action, timeout_s, request_id, reply, include }).filter(([, value]) => value !== undefined));
}
