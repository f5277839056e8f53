import { DebugGymError, EnvNotReadyError } from '@debug-gym/core';
import { BudgetExhaustedError, ServerError, ServerFullError } from '../errors.js';
import { SessionFinishedError } from '../session/env-session.js';

/** An error as the HTTP and WebSocket wire carry it. */
export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: string; message: string } & Record<string, unknown> };
}

/** Errors of a bad reset (the client's to fix), answered 400. */
const CLIENT_CODES = new Set(['DG_ENV_CONFIG', 'DG_PLUGIN_LOAD_FAILED', 'DG_TOOL_DUPLICATE', 'DG_BENCH_UNKNOWN_TASK', 'DG_CLI_CONFIG']);

/** Fastify's own request errors, by their code. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: (limit: number) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'DG_BODY_TOO_LARGE',
    message: (limit) => `The request body is larger than this server's limit of ${limit} bytes (--max-body-bytes). Send smaller requests, e.g. write a big file in parts.`,
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'DG_UNSUPPORTED_MEDIA_TYPE', message: () => 'The request body must be JSON: send it with `Content-Type: application/json`.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'DG_MALFORMED_REQUEST', message: () => 'The request body does not match its Content-Length.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'DG_MALFORMED_JSON', message: () => 'The request says it is JSON but its body is empty: send `{}` for no options.' },
};

/**
 * The status and body for `error`: the server's own errors as they are, debug-gym errors by kind
 * (a bad reset is 400, an unavailable sandbox 503), malformed JSON 400, and anything else 500 with
 * its message only (the stack goes to the log).
 */
export function errorReply(error: unknown, maxBodyBytes: number): ErrorReply & { internal?: Error } {
  if (error instanceof ServerError) {
    const headers: Record<string, string> = error instanceof ServerFullError || error instanceof BudgetExhaustedError ? { 'retry-after': String(error.retryAfterSeconds) } : error.status === 401 ? { 'www-authenticate': 'Bearer realm="debug-gym"' } : {};
    return reply(error.status, error.code, error.message, error.details, headers);
  }
  if (error instanceof SessionFinishedError) return reply(410, 'DG_SESSION_CLOSED', error.message);
  if (EnvNotReadyError.isInstance(error)) return reply(409, error.code, `${error.message} (POST /reset first).`);
  if (DebugGymError.isInstance(error)) {
    const status = error.code === 'DG_SERVE_SHUTTING_DOWN' || error.code === 'DG_TERMINAL_UNAVAILABLE' ? 503 : CLIENT_CODES.has(error.code) ? 400 : 500;
    return reply(status, error.code, error.message, { name: error.name });
  }
  const framework = error as { code?: string; statusCode?: number; message?: string };
  const known = framework.code ? FRAMEWORK_ERRORS[framework.code] : undefined;
  if (known) return reply(known.status, known.code, known.message(maxBodyBytes));
  if (framework.statusCode === 400 && (error instanceof SyntaxError || framework.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return reply(400, 'DG_MALFORMED_JSON', `The request body is not valid JSON (${framework.message ?? 'parse error'}).`);
  }
  if (typeof framework.statusCode === 'number' && framework.statusCode >= 400 && framework.statusCode < 500) {
    return reply(framework.statusCode, 'DG_BAD_REQUEST', framework.message ?? 'Bad request.');
  }
  const internal = error instanceof Error ? error : new Error(String(error));
  return { ...reply(500, 'DG_INTERNAL', `Internal error: ${internal.message}`), internal };
}

function reply(status: number, code: string, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}): ErrorReply {
  return { status, headers, body: { error: { code, message, ...details } } };
}
