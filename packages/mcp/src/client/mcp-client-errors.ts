import { DebugGymError } from '@debug-gym/spec';

/** An `mcp_servers` entry that cannot work as written (no url or command, a bad transport, a tool filter naming no tool...). */
export class McpServerConfigError extends DebugGymError {
  constructor(server: string, problem: string) {
    super('DG_MCP_SERVER_CONFIG', `MCP server \`${server}\`: ${problem}`);
  }
}

/** The MCP server could not be reached or started, or its connection broke. */
export class McpServerUnavailableError extends DebugGymError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DG_MCP_SERVER_UNAVAILABLE', message, options);
  }
}

/** The MCP server answered a tool call with a protocol error (not a result). */
export class McpToolCallError extends DebugGymError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DG_MCP_TOOL_CALL_FAILED', message, options);
  }
}

/** The MCP server did not answer within the configured `timeout`. */
export class McpTimeoutError extends DebugGymError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DG_MCP_TIMEOUT', message, options);
  }
}
