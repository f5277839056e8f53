export { closestKey, formatIssues, knownKeysAt } from './params/closest-key.js';
export { DEFAULT_SERVE_TOOLS, refineSelection, resetParamsSchema, resetParamsShape, terminalParamsSchema, type ResetParams, type TerminalParams } from './params/reset-params.js';
export { createEnvFactory, type EnvFactory, type EnvFactoryOptions, type ResolvedTask, type TaskResolver, type TaskSelection } from './params/env-factory.js';
export { parseRequest, resetRequestSchema, splitReset, stepRequestSchema, toolCallShape, toToolCall } from './params/requests.js';
export { EnvSession, SessionFinishedError } from './session/env-session.js';
export { ShuttingDownError } from './session/shutting-down-error.js';
export { ALWAYS_SENT, LeanReplies, REPLY_MODES, replyOptionsSchema, replyOptionsShape, type ReplyMode, type ReplyOptions } from './wire/lean-replies.js';
export { toWire } from './wire/to-wire.js';
export { DONE_FIELD, infoFieldOf, WIRE_FIELDS, WIRE_NAME, type InfoField, type WireField } from './wire/wire-fields.js';
export {
  EpisodeDoneError,
  InvalidRequestError,
  ServerError,
  ServerFullError,
  SessionBusyError,
  SessionClosedError,
  StepTimeoutError,
  UnknownSessionError,
} from './errors.js';
export { createHttpServer, ServerConfigError, type DebugGymHttpServer, type HttpServerOptions } from './http/create-http-server.js';
export { bearerCheck, isLoopback } from './http/auth.js';
export { DEFAULT_MAX_BODY_BYTES, MAX_REQUEST_DEPTH } from './http/limits.js';
export { SESSION_ENDED_CLOSE_CODE } from './http/ws-session.js';
export { ServerMetrics } from './metrics.js';
export { EnvService, type EnvReply, type ForkReply, type SessionState } from './service/env-service.js';
export { errorReply, type ErrorReply } from './service/error-reply.js';
export { ServedSession, type EpisodeLabels } from './session/served-session.js';
export { SessionRegistry, type SessionRegistryOptions } from './session/session-registry.js';
export { actionSchema, leanWireInfoSchema, openEnvSchemas, stateSchema, wireInfoSchema } from './wire/wire-schema.js';
