import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { DebugGymError } from '@debug-gym/spec';
import { VERSION } from '../version.js';
import { McpServerUnavailableError, McpTimeoutError, McpToolCallError } from './mcp-client-errors.js';
import { describeServer, timeoutMs, transportOf, type McpServerConfig, type McpTransportKind } from './mcp-server-config.js';

/** The last this many characters of a stdio server's stderr are kept for messages. */
const STDERR_TAIL_CHARS = 2000;

/** One open client session to one MCP server. */
export interface McpConnection {
  readonly client: Client;
  /** The transport that connected (with `url` and no `transport`, `sse` when the server only speaks SSE). */
  readonly transport: McpTransportKind;
  /** True once the connection ended (closed by us, the server process exited, the HTTP session broke). */
  readonly closed: boolean;
  /** What a stdio server last wrote to stderr (empty for HTTP servers). */
  stderrTail(): string;
  /** End the session: an HTTP session is deleted on the server, a stdio server's stdin closed (then SIGTERM, SIGKILL). */
  close(): Promise<void>;
}

/**
 * Connect to the server `config` describes and initialize the MCP session, within the config's
 * `timeout`. Throws `McpServerUnavailableError` / `McpTimeoutError` with what went wrong and what to check.
 */
export async function connectMcpServer(config: McpServerConfig): Promise<McpConnection> {
  const kind = transportOf(config);
  if (kind !== 'auto-http') return connectWith(config, kind);
  try {
    return await connectWith(config, 'streamable_http');
  } catch (error) {
    // An HTTP error status to the Streamable HTTP handshake: the server may be an SSE-only (older) one.
    if (!(DebugGymError.isInstance(error) && error.cause instanceof StreamableHTTPError)) throw error;
    try {
      return await connectWith(config, 'sse');
    } catch {
      throw error;
    }
  }
}

async function connectWith(config: McpServerConfig, kind: McpTransportKind): Promise<McpConnection> {
  let stderr = '';
  const transport = createTransport(config, kind, (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const client = new Client({ name: 'debug-gym', version: VERSION }, { capabilities: {} });
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  // Transport errors also reject the request they concern; the handler only keeps them from being unhandled.
  client.onerror = () => undefined;
  try {
    await client.connect(transport, { timeout: timeoutMs(config) });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw explainMcpFailure(config, error, 'connect', () => stderr);
  }
  return {
    client,
    transport: kind,
    get closed() {
      return closed;
    },
    stderrTail: () => stderr,
    async close() {
      if (closed) return;
      closed = true;
      if (transport instanceof StreamableHTTPClientTransport) await withTimeout(transport.terminateSession(), 2000).catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

function createTransport(config: McpServerConfig, kind: McpTransportKind, onStderr: (chunk: string) => void): Transport {
  const requestInit: RequestInit | undefined = config.headers && Object.keys(config.headers).length > 0 ? { headers: { ...config.headers } } : undefined;
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: config.command as string,
      args: [...(config.args ?? [])],
      ...(config.env ? { env: { ...config.env } } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
    return transport;
  }
  const url = new URL(config.url as string);
  if (kind === 'sse') {
    // The SSE GET goes through `fetch` (eventsource), the POSTs through `requestInit`: both get the headers.
    const headers = requestInit?.headers as Record<string, string> | undefined;
    return new SSEClientTransport(url, {
      ...(requestInit ? { requestInit } : {}),
      ...(headers ? { eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } } : {}),
    });
  }
  return new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
}

/**
 * A debug-gym error for a failed MCP operation: timeouts, a server that cannot be reached or whose
 * connection broke (with a stdio server's last stderr lines), and errors the server answered with.
 */
export function explainMcpFailure(config: McpServerConfig, error: unknown, operation: 'connect' | 'list' | 'call', stderrTail: () => string = () => ''): DebugGymError {
  if (DebugGymError.isInstance(error)) return error;
  const where = `the MCP server \`${config.name}\` (${describeServer(config)})`;
  const seconds = timeoutMs(config) / 1000;
  const tail = stderrTail().trim();
  const stderrNote = tail ? `\nIts last output on stderr:\n${tail.split('\n').slice(-10).join('\n')}` : '';
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpTimeoutError(`${where} did not answer within ${seconds} s${operation === 'connect' ? ' while connecting' : ''}. It may be overloaded or stuck; a slow tool needs a larger \`timeout\` in the server's config.`, { cause: error });
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new McpServerUnavailableError(`${where} closed the connection${operation === 'connect' ? ' before the MCP handshake ended' : ''}. ${hint(config)}${stderrNote}`, { cause: error });
  }
  if (error instanceof McpError) {
    return new McpToolCallError(`${where} refused the request: ${error.message}`, { cause: error });
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code ?? 0;
    const auth = status === 401 || status === 403 ? ' Check `headers` (e.g. the Authorization token).' : status === 404 || status === 405 ? ' Check the `url` path (often /mcp, or /sse with `transport: sse`).' : '';
    return new McpServerUnavailableError(`${where} answered HTTP ${status}: ${error.message}.${auth}`, { cause: error });
  }
  const detail = describeCause(error);
  if (operation === 'connect') return new McpServerUnavailableError(`${where} could not be ${transportOf(config) === 'stdio' ? 'started' : 'reached'}: ${detail}. ${hint(config)}${stderrNote}`, { cause: error });
  return new McpServerUnavailableError(`the connection to ${where} failed: ${detail}. ${hint(config)}${stderrNote}`, { cause: error });
}

function hint(config: McpServerConfig): string {
  return transportOf(config) === 'stdio'
    ? 'Check that `command` starts an MCP server on stdio (run it by hand to see its errors).'
    : 'Check that the server is running and that `url` is its MCP endpoint.';
}

/** `fetch failed` says nothing: the reason is in its cause (ECONNREFUSED, ENOTFOUND...). */
function describeCause(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error && parts.length < 4; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    const text = current.message || current.name;
    parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}
