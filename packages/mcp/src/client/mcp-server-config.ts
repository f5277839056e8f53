import { McpServerConfigError } from './mcp-client-errors.js';

/** How to reach an MCP server: `stdio` starts `command`; the others connect to `url`. */
export type McpTransportKind = 'stdio' | 'streamable_http' | 'sse';

/**
 * One MCP server whose tools become env tools (the original's `mcp_servers` entry, camelCased).
 * Give `url` (Streamable HTTP, or SSE with `transport: 'sse'`) or `command` (stdio).
 */
export interface McpServerConfig {
  /** The server's name in the config (`mcp_servers.<name>`): used in messages, never sent to the model. */
  name: string;
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  url?: string;
  /**
   * Default: `stdio` with `command`; with `url`, Streamable HTTP, falling back to SSE when the server
   * answers the Streamable HTTP handshake with an HTTP error (an SSE-only server). `sse` or
   * `streamable_http` forces one.
   */
  transport?: McpTransportKind;
  /** HTTP headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** stdio: the program to start, its arguments, extra environment variables and working directory. */
  command?: string;
  args?: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Put before each tool's name (`mcp_` → `mcp_query`). Default none. */
  toolPrefix?: string;
  /** Only these tools of the server (by the server's names). Default all. */
  tools?: readonly string[];
  /** Seconds any one MCP operation (connecting, listing, a tool call) may take. Default 60. */
  timeout?: number;
}

export const DEFAULT_MCP_TIMEOUT_SECONDS = 60;

/** The transport `config` uses (`auto-http`: Streamable HTTP with the SSE fallback). */
export function transportOf(config: McpServerConfig): McpTransportKind | 'auto-http' {
  if (config.transport) return config.transport;
  return config.command !== undefined && config.url === undefined ? 'stdio' : 'auto-http';
}

/** Where the server is, for messages: its URL or its command line. */
export function describeServer(config: McpServerConfig): string {
  if (config.url !== undefined && transportOf(config) !== 'stdio') return config.url;
  return [config.command ?? '', ...(config.args ?? [])].join(' ').trim();
}

/** Refuse a config that cannot work, with what to change. */
export function checkServerConfig(config: McpServerConfig): void {
  const name = typeof config.name === 'string' && config.name ? config.name : '<unnamed>';
  const fail = (problem: string): never => {
    throw new McpServerConfigError(name, problem);
  };
  if (typeof config.name !== 'string' || config.name === '') fail('give the server a name (the key under `mcp_servers`).');
  if (config.transport !== undefined && !['stdio', 'streamable_http', 'sse'].includes(config.transport)) {
    fail(`unknown transport ${JSON.stringify(config.transport)}; use 'streamable_http' or 'sse' (with url) or 'stdio' (with command).`);
  }
  const kind = transportOf(config);
  if (kind === 'stdio') {
    if (typeof config.command !== 'string' || config.command.trim() === '') fail('a stdio server needs `command` (the program that serves MCP on its stdin/stdout).');
  } else {
    if (typeof config.url !== 'string' || config.url === '') fail('give `url` (a Streamable HTTP or SSE endpoint) or `command` (a stdio server).');
    let parsed: URL | undefined;
    try {
      parsed = new URL(config.url as string);
    } catch {
      fail(`\`url\` ${JSON.stringify(config.url)} is not a URL; write it like http://127.0.0.1:8765/mcp.`);
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail(`\`url\` must be http:// or https://, not ${parsed.protocol}`);
    if (config.command !== undefined) fail('give either `url` or `command`, not both.');
  }
  if (config.timeout !== undefined && !(typeof config.timeout === 'number' && Number.isFinite(config.timeout) && config.timeout > 0)) {
    fail(`\`timeout\` must be a number of seconds above 0, got ${JSON.stringify(config.timeout)}.`);
  }
  if (config.toolPrefix !== undefined && (typeof config.toolPrefix !== 'string' || !/^[\w-]*$/.test(config.toolPrefix))) {
    fail(`\`tool_prefix\` may only contain letters, digits, \`_\` and \`-\`, got ${JSON.stringify(config.toolPrefix)}.`);
  }
}

/** Milliseconds each MCP operation of `config` may take. */
export function timeoutMs(config: McpServerConfig): number {
  return Math.round((config.timeout ?? DEFAULT_MCP_TIMEOUT_SECONDS) * 1000);
}
