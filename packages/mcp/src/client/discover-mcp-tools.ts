import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { validateArguments } from '@debug-gym/plugin-kit';
import { DebugGymError, type JsonSchemaObject, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { formatToolResult, type McpToolResult } from './format-tool-result.js';
import { McpServerConfigError } from './mcp-client-errors.js';
import { connectMcpServer, explainMcpFailure, type McpConnection } from './mcp-connection.js';
import { checkServerConfig, describeServer, timeoutMs, type McpServerConfig, type McpTransportKind } from './mcp-server-config.js';
import { ServerLinks } from './server-links.js';

/** What `discoverMcpServer` found on one server. */
export interface McpServerTools {
  /** The config's name of the server. */
  server: string;
  /** What the server calls itself (`initialize`'s serverInfo). */
  serverInfo: { name: string; version: string } | null;
  /** The transport that worked. */
  transport: McpTransportKind;
  /** One env tool per (selected) server tool, in the server's order. */
  tools: ToolPluginV1[];
  /** Env tool name → the server's tool name (they differ by the prefix, and by characters a model cannot call). */
  names: Record<string, string>;
}

/** Longest tool name the function-calling APIs accept (OpenAI, Anthropic). */
const MAX_TOOL_NAME = 64;

/**
 * Connect to an MCP server, list its tools (every page) and turn each into a debug-gym tool plugin:
 * name `toolPrefix + name`, the server's description and input schema (the JSON Schema the env
 * validates calls against, as for built-in tools). The discovery session is closed before this
 * returns; each env that registers the tools opens its own session at reset (shared by the server's
 * tools in that env) and closes it with the env. Throws `McpServerConfigError`,
 * `McpServerUnavailableError` or `McpTimeoutError` with what to fix.
 */
export async function discoverMcpServer(config: McpServerConfig): Promise<McpServerTools> {
  checkServerConfig(config);
  const connection = await connectMcpServer(config);
  try {
    const listed = await listAllTools(config, connection);
    const selected = selectTools(config, listed);
    const links = new ServerLinks(config);
    const names: Record<string, string> = {};
    const tools = selected.map((tool) => {
      const name = envToolName(config, tool.name);
      if (names[name] !== undefined) {
        throw new McpServerConfigError(config.name, `the tools \`${names[name]}\` and \`${tool.name}\` would both be called \`${name}\`; keep one with \`tools\`.`);
      }
      names[name] = tool.name;
      return mcpToolPlugin(links, name, tool);
    });
    const info = connection.client.getServerVersion();
    return { server: config.name, serverInfo: info ? { name: info.name, version: info.version } : null, transport: connection.transport, tools, names };
  } finally {
    await connection.close();
  }
}

/** `discoverMcpServer(config).tools`: the env tools of one MCP server, for `RepoEnv`'s `tools`. */
export async function discoverMcpTools(config: McpServerConfig): Promise<ToolPluginV1[]> {
  return (await discoverMcpServer(config)).tools;
}

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema?: Record<string, unknown> | undefined;
}

async function listAllTools(config: McpServerConfig, connection: McpConnection): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < 1000; page += 1) {
      const result = await connection.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs(config) });
      tools.push(...(result.tools as ListedTool[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
    throw explainMcpFailure(config, error, 'list', () => connection.stderrTail());
  }
  return tools;
}

function selectTools(config: McpServerConfig, listed: ListedTool[]): ListedTool[] {
  if (!config.tools) return listed;
  const available = new Set(listed.map((tool) => tool.name));
  const missing = config.tools.filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw new McpServerConfigError(
      config.name,
      `\`tools\` names ${missing.map((name) => `\`${name}\``).join(', ')}, which the server (${describeServer(config)}) does not have. Its tools: ${[...available].join(', ') || '(none)'}.`,
    );
  }
  const wanted = new Set(config.tools);
  return listed.filter((tool) => wanted.has(tool.name));
}

/** `toolPrefix + name`, with characters the function-calling APIs refuse replaced by `_`. */
function envToolName(config: McpServerConfig, remote: string): string {
  let name = `${config.toolPrefix ?? ''}${remote}`.replace(/[^\w-]/g, '_');
  if (!/^[a-zA-Z_]/.test(name)) name = `_${name}`;
  if (name.length > MAX_TOOL_NAME) {
    throw new McpServerConfigError(config.name, `the tool name \`${name}\` is longer than ${MAX_TOOL_NAME} characters, which models cannot call; use a shorter \`tool_prefix\` or leave the tool out with \`tools\`.`);
  }
  return name;
}

/**
 * The server's input schema as the tool's parameters: `$schema`/`$id` dropped (the validator
 * speaks one draft), `type: object` and `properties` ensured. A schema the validator cannot compile
 * is reduced to its top-level properties (type, description, enum), as the original does for every
 * schema.
 */
export function toToolParameters(name: string, inputSchema: Record<string, unknown> | undefined): JsonSchemaObject {
  const { $schema: _schema, $id: _id, ...rest } = inputSchema ?? {};
  const properties = isRecord(rest.properties) ? rest.properties : {};
  const schema = { ...rest, type: 'object', properties } as unknown as JsonSchemaObject;
  try {
    validateArguments(name, schema, {});
    return schema;
  } catch {
    return flattenSchema(properties, Array.isArray(rest.required) ? (rest.required as string[]) : []);
  }
}

function flattenSchema(properties: Record<string, unknown>, required: string[]): JsonSchemaObject {
  const flat: JsonSchemaObject['properties'] = {};
  for (const [key, value] of Object.entries(properties)) {
    const property = isRecord(value) ? value : {};
    flat[key] = {
      type: (typeof property.type === 'string' || Array.isArray(property.type) ? property.type : 'string') as JsonSchemaObject['properties'][string]['type'],
      description: typeof property.description === 'string' ? property.description : `Parameter ${key}`,
      ...(Array.isArray(property.enum) ? { enum: property.enum } : {}),
    };
  }
  return { type: 'object', properties: flat, required: required.filter((key) => key in flat) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mcpToolPlugin(links: ServerLinks, name: string, tool: ListedTool): ToolPluginV1 {
  const description = tool.description?.trim() || `MCP tool: ${tool.name}`;
  const parameters = toToolParameters(name, tool.inputSchema);
  return {
    specificationVersion: 'tool-plugin-v1',
    name,
    description,
    parameters,
    create: () => new McpToolInstance(links, tool.name),
  };
}

/** One MCP tool in one env: calls go through the env's session with the server. */
class McpToolInstance implements ToolInstance {
  /** The env this instance belongs to (its tool context), known from the first hook or call. */
  private env: ToolContext | null = null;

  constructor(
    private readonly links: ServerLinks,
    private readonly remote: string,
  ) {}

  async onReset(context: ToolContext): Promise<string | void> {
    return this.open(context);
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<string> {
    this.env = context;
    const config = this.links.config;
    let connection = await this.links.connect(context, this, { retry: true });
    let result: McpToolResult;
    try {
      result = await this.call(connection, args);
    } catch (error) {
      if (!connectionLost(connection, error)) throw explainMcpFailure(config, error, 'call', () => connection.stderrTail());
      // The session broke (server restarted, HTTP session expired, stdio server exited): one new session, one more try.
      await this.links.drop(context, connection);
      connection = await this.links.connect(context, this, { retry: true });
      try {
        result = await this.call(connection, args);
      } catch (retryError) {
        throw explainMcpFailure(config, retryError, 'call', () => connection.stderrTail());
      }
    }
    return formatToolResult(result, this.remote);
  }

  snapshot(): unknown {
    return { server: this.links.config.name };
  }

  /** A forked env gets its own session with the server (a stdio server: its own process, in its initial state). */
  async restore(_snapshot: unknown, context: ToolContext): Promise<string | void> {
    return this.open(context);
  }

  async close(): Promise<void> {
    const env = this.env;
    this.env = null;
    if (env) await this.links.release(env, this);
  }

  private async open(context: ToolContext): Promise<string | void> {
    this.env = context;
    try {
      await this.links.connect(context, this, { retry: false });
    } catch (error) {
      if (!this.links.firstReport(context)) return;
      const message = DebugGymError.isInstance(error) ? error.message : String(error);
      return `MCP server \`${this.links.config.name}\` is unavailable, so its tools will fail until it is back (each call tries to connect again): ${message}`;
    }
  }

  private call(connection: McpConnection, args: Record<string, unknown>): Promise<McpToolResult> {
    return connection.client.callTool({ name: this.remote, arguments: args }, undefined, { timeout: timeoutMs(this.links.config) }) as Promise<McpToolResult>;
  }
}

/** The failure was the session's, not the tool's: the call can be sent again on a new session. */
function connectionLost(connection: McpConnection, error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  // An HTTP server that restarted answers 404 to the old session id; a server that went away fails the fetch.
  if (error instanceof StreamableHTTPError) return error.code === 404;
  return connection.closed || error instanceof TypeError;
}
