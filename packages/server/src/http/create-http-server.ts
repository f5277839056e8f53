import type { AddressInfo } from 'node:net';
import { exceedsDepth, VERSION } from '@debug-gym/core';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { ServerError, UnknownSessionError } from '../errors.js';
import { ServerMetrics } from '../metrics.js';
import { createEnvFactory, type EnvFactoryOptions } from '../params/env-factory.js';
import { EnvService } from '../service/env-service.js';
import { errorReply } from '../service/error-reply.js';
import { claimOf, derivedMaxSessions, hostBudget } from '../session/sandbox-budget.js';
import { SessionRegistry } from '../session/session-registry.js';
import { openEnvSchemas } from '../wire/wire-schema.js';
import { bearerCheck, isLoopback } from './auth.js';
import { DEFAULT_MAX_BODY_BYTES, MAX_REQUEST_DEPTH } from './limits.js';
import { requiredSessionId, sessionIdOf, withoutSessionId } from './session-id.js';
import { SESSION_ENDED_CLOSE_CODE, serveWebSocket } from './ws-session.js';

export interface HttpServerOptions extends Omit<EnvFactoryOptions, 'refuseLocal'> {
  /** Default 127.0.0.1. Anything that is not loopback needs `token`. */
  host?: string;
  /** Default 8000; 0 picks a free port (see `listen()`'s answer). */
  port?: number;
  /** Bearer token every request but `GET /health` must carry. */
  token?: string;
  /**
   * Sessions open at once; more are answered 503 with a Retry-After. Default: as many default
   * sandboxes (2 GiB, 1024 processes) as the budget holds, at most 64.
   */
  maxSessions?: number;
  /**
   * Memory all sessions' sandboxes may claim together (their memory limits summed), in bytes.
   * Default: the host's memory less 1 GiB. Above it, resets are answered 503 DG_SERVER_BUDGET_EXHAUSTED.
   */
  memoryBudgetBytes?: number;
  /** Processes all sessions' sandboxes may claim together (their process limits summed). Default: pid_max less 4096. */
  pidsBudget?: number;
  /** Close sessions without a request for this long (default 600; 0: never). */
  idleTtlSeconds?: number;
  /** Longest step (default 300; 0: no limit); a longer one is cancelled, its sandbox closed, 504. */
  stepTimeoutSeconds?: number;
  /** Largest request body or WebSocket message (default 16 MiB). */
  maxBodyBytes?: number;
  /** Accept `terminal.type: local` (unsandboxed). Default: only when bound to loopback. */
  allowLocal?: boolean;
  /** pino level (default `info`); `silent` for none. */
  logLevel?: string;
  /** Where the JSON log lines go (default stderr). */
  logStream?: NodeJS.WritableStream;
}

export interface DebugGymHttpServer {
  readonly app: FastifyInstance;
  readonly sessions: SessionRegistry;
  readonly metrics: ServerMetrics;
  /** Start listening; resolves to the address really bound (the port `0` picked). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Close every session (running requests fail with 410), then the server. Idempotent. */
  close(reason?: string): Promise<void>;
}

/** The server refuses its own configuration (a non-loopback host without a token, a bad number). */
export class ServerConfigError extends ServerError {
  constructor(message: string) {
    super('DG_SERVER_CONFIG', message, 500);
  }
}

const ENDPOINTS = 'GET /health, /metadata, /schema, /state, /capacity, /metrics; POST /reset, /step, /fork, /close; WebSocket /ws';

function positive(name: string, value: number, allowZero: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new ServerConfigError(`\`${name}\` must be a number ${allowZero ? '≥ 0' : '> 0'} (got ${value}).`);
  return value;
}

/**
 * debug-gym as a many-session HTTP + WebSocket server, OpenEnv-compatible: `POST /reset` opens (or
 * resets) a session, `POST /step` runs a tool call in it, `/ws` is one session per connection. The
 * wire uses the original debug-gym's snake_case names (see WIRE_FIELDS).
 */
export async function createHttpServer(options: HttpServerOptions = {}): Promise<DebugGymHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  const token = options.token || undefined;
  if (!loopback && !token) {
    throw new ServerConfigError(`Refusing to listen on ${host} without a token: anyone who reaches it could run code in its sandboxes. Pass --token (or DEBUG_GYM_SERVER_TOKEN), or bind 127.0.0.1.`);
  }
  const machine = hostBudget();
  const budget = {
    memoryBytes: positive('memoryBudgetBytes', options.memoryBudgetBytes ?? machine.memoryBytes, false),
    pids: positive('pidsBudget', options.pidsBudget ?? machine.pids, false),
  };
  const maxSessions = positive('maxSessions', options.maxSessions ?? derivedMaxSessions(budget), false);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, false);
  const idleTtlMs = positive('idleTtlSeconds', options.idleTtlSeconds ?? 600, true) * 1000;
  const stepTimeoutMs = positive('stepTimeoutSeconds', options.stepTimeoutSeconds ?? 300, true) * 1000;
  const { host: _host, port: _port, token: _token, maxSessions: _max, memoryBudgetBytes: _memory, pidsBudget: _pids, idleTtlSeconds: _ttl, stepTimeoutSeconds: _step, maxBodyBytes: _body, allowLocal, logLevel, logStream, ...factoryOptions } = options;

  const app = Fastify({
    bodyLimit: maxBodyBytes,
    logger: { level: logLevel ?? 'info', stream: logStream ?? process.stderr },
    // One line per request would drown the session events at thousands of steps per second.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  });
  // JSON only: a text/plain body is answered 415, not read as a string.
  app.removeContentTypeParser('text/plain');
  const sockets = new Map<string, WebSocket>();
  const registry: SessionRegistry = new SessionRegistry({
    factory: createEnvFactory({ ...factoryOptions, refuseLocal: !(allowLocal ?? loopback) }),
    maxSessions,
    budget,
    idleTtlMs,
    onClose(session, reason) {
      metrics.sessionsClosed.inc({ reason: closeLabel(reason) });
      app.log.info({ session_id: session.id, reason, transport: session.transport }, 'session closed');
      const socket = sockets.get(session.id);
      if (socket) socket.close(SESSION_ENDED_CLOSE_CODE, `session closed: ${reason}`.slice(0, 120));
    },
  });
  const metrics = new ServerMetrics(() => ({ total: registry.size, busy: registry.busy }));
  const defaultTerminal = factoryOptions.defaultTerminal ?? { type: 'auto' as const };
  const service = new EnvService({ registry, metrics, stepTimeoutMs, log: app.log, claimFor: (params) => claimOf(params.terminal ?? defaultTerminal) });
  const checkToken = token ? bearerCheck(token) : undefined;

  const sendError = (error: unknown, reply: FastifyReply): FastifyReply => {
    const answer = errorReply(error, maxBodyBytes);
    metrics.rejected.inc({ code: answer.body.error.code });
    if (answer.internal) app.log.error({ err: answer.internal }, 'internal error');
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };
  app.setErrorHandler((error, _request, reply) => sendError(error, reply));
  app.setNotFoundHandler((request, reply) => sendError(new ServerError('DG_NOT_FOUND', `No endpoint ${request.method} ${request.url.split('?')[0]}. Endpoints: ${ENDPOINTS}.`, 404), reply));
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined && exceedsDepth(request.body, MAX_REQUEST_DEPTH)) {
      throw new ServerError('DG_MALFORMED_REQUEST', `The request body is nested too deeply (more than ${MAX_REQUEST_DEPTH} levels of objects and arrays).`, 400);
    }
  });

  await app.register(fastifyWebsocket, { options: { maxPayload: maxBodyBytes } });
  // After the WebSocket plugin's own hook, so a refused upgrade is answered (401) and its socket closed.
  app.addHook('onRequest', async (request) => {
    if (checkToken && request.url.split('?')[0] !== '/health') checkToken(request.headers.authorization);
  });

  app.get('/health', async () => ({ status: 'healthy' }));
  app.get('/metadata', async () => ({
    name: 'debug-gym',
    description: 'A debugger for LLM agents: a Python repository with a bug in a sandbox, tools (view, eval, pdb, rewrite, ...) as actions, test results as the score.',
    readme_content: null,
    version: VERSION,
    author: 'debug-gym',
    documentation_url: 'https://github.com/microsoft/debug-gym',
  }));
  app.get('/schema', async () => openEnvSchemas());
  app.get('/capacity', async () => {
    const held = registry.held();
    return {
      active_sessions: registry.size,
      busy_sessions: registry.busy,
      max_sessions: registry.maxSessions,
      memory_bytes: { in_use: held.memoryBytes, budget: budget.memoryBytes },
      pids: { in_use: held.pids, budget: budget.pids },
    };
  });
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
  app.get('/state', async (request) => service.state(registry.get(requiredSessionId(request, undefined))));
  app.post('/reset', async (request) => {
    const body = objectBody(request);
    return service.reset(withoutSessionId(body), sessionIdOf(request, body), 'http');
  });
  app.post('/step', async (request) => {
    const body = objectBody(request);
    return service.step(registry.get(requiredSessionId(request, body)), withoutSessionId(body));
  });
  app.post('/fork', async (request) => {
    const body = objectBody(request);
    return service.fork(registry.get(requiredSessionId(request, body)), withoutSessionId(body));
  });
  app.post('/close', async (request) => {
    const id = requiredSessionId(request, objectBody(request));
    const session = registry.find(id);
    if (session) {
      await registry.close(session, 'closed by the client');
      return { session_id: id, closed: true };
    }
    const reason = registry.closedReason(id);
    if (reason) return { session_id: id, closed: true, reason };
    throw new UnknownSessionError(id);
  });
  app.get('/ws', { websocket: true }, (socket) =>
    serveWebSocket(socket, {
      service,
      registry,
      maxBodyBytes,
      sockets,
      onError(answer) {
        metrics.rejected.inc({ code: answer.body.error.code });
        if (answer.internal) app.log.error({ err: answer.internal }, 'internal error');
      },
    }),
  );

  registry.startReaper();
  let closing: Promise<void> | undefined;
  return {
    app,
    sessions: registry,
    metrics,
    async listen() {
      await app.listen({ host, port: options.port ?? 8000 });
      const address = app.server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      app.log.info({ host: address.address, port: address.port, max_sessions: maxSessions, memory_budget_bytes: budget.memoryBytes, pids_budget: budget.pids, idle_ttl_s: idleTtlMs / 1000, step_timeout_s: stepTimeoutMs / 1000, token: Boolean(token) }, 'listening');
      return { host: address.address, port: address.port, url: `http://${shown}:${address.port}` };
    },
    close(reason = 'the server is shutting down') {
      closing ??= (async () => {
        await registry.closeAll(reason);
        await app.close();
      })();
      return closing;
    },
  };
}

/** A close reason as a metric label. */
function closeLabel(reason: string): string {
  if (reason.startsWith('idle')) return 'idle_ttl';
  if (reason.startsWith('the server')) return 'shutdown';
  if (reason.startsWith('its first reset')) return 'reset_failed';
  return reason.includes('WebSocket') ? 'websocket' : 'client';
}

/** The JSON body as an object (no body: `{}`). */
function objectBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ServerError('DG_INVALID_REQUEST', 'The request body must be a JSON object.', 422);
  return body as Record<string, unknown>;
}
