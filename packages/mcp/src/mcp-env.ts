import type { EnvInfo, ToolCall } from '@debug-gym/spec';

/** What the MCP server needs of an environment: RepoEnv's public surface. */
export interface McpEnv {
  reset(): Promise<EnvInfo>;
  step(toolCall: ToolCall): Promise<EnvInfo>;
  close(): Promise<void>;
}

/** Builds a new, not yet reset environment: one per stdio server, one per HTTP session. */
export type McpEnvFactory = () => Promise<McpEnv>;
