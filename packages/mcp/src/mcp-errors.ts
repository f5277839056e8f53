import { DebugGymError } from '@debug-gym/spec';

/** The MCP server cannot start as configured (e.g. a non-loopback address without a token). */
export class McpConfigError extends DebugGymError {
  constructor(message: string) {
    super('DG_MCP_CONFIG', message);
  }
}

/** A tool call reached a session that was already closed (server shutting down, HTTP session ended). */
export class McpSessionClosedError extends DebugGymError {
  constructor() {
    super('DG_MCP_SESSION_CLOSED', 'This debug-gym MCP session is closed; reconnect to get a fresh sandbox.');
  }
}
