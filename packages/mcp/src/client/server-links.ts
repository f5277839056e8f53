import type { DebugGymError } from '@debug-gym/spec';
import { connectMcpServer, type McpConnection } from './mcp-connection.js';
import type { McpServerConfig } from './mcp-server-config.js';

/** One env's session with one server, shared by that server's tools in the env. */
interface Link {
  /** The tool instances of the env that use it; the session closes when the last one is closed. */
  readonly holders: Set<object>;
  attempt: Promise<McpConnection> | null;
  connection: McpConnection | null;
  failure: DebugGymError | null;
  /** The current failure was already told to the agent (one note per server, not one per tool). */
  reported: boolean;
}

/**
 * The sessions of one MCP server, one per env: keyed by the env's tool context (the same object for
 * every call of one env; a forked env has its own), opened at reset and closed with the env's tools.
 */
export class ServerLinks {
  private readonly links = new WeakMap<object, Link>();

  constructor(readonly config: McpServerConfig) {}

  /**
   * The env's session, connecting if there is none. A failed attempt is kept (and thrown again to
   * the env's other tools) until `retry`: a reset tries a down server once, not once per tool.
   */
  async connect(env: object, holder: object, options: { retry: boolean }): Promise<McpConnection> {
    const link = this.linkOf(env);
    link.holders.add(holder);
    if (link.connection && !link.connection.closed) return link.connection;
    if (link.attempt && (link.failure === null || !options.retry) && link.connection === null) return link.attempt;
    link.connection = null;
    link.failure = null;
    link.reported = false;
    const attempt = connectMcpServer(this.config).then(
      (connection) => {
        if (link.attempt === attempt) link.connection = connection;
        if (link.holders.size === 0 || link.attempt !== attempt) void connection.close();
        return connection;
      },
      (error: DebugGymError) => {
        if (link.attempt === attempt) link.failure = error;
        throw error;
      },
    );
    link.attempt = attempt;
    return attempt;
  }

  /** Forget a broken session, so the next `connect` opens a new one. */
  async drop(env: object, connection: McpConnection): Promise<void> {
    const link = this.links.get(env);
    if (link?.connection === connection) {
      link.connection = null;
      link.attempt = null;
    }
    await connection.close();
  }

  /** True the first time the current failure is asked about: the caller tells the agent. */
  firstReport(env: object): boolean {
    const link = this.links.get(env);
    if (!link || link.reported) return false;
    link.reported = true;
    return true;
  }

  /** `holder` is done (its env closed, reset or hid it); the last one out closes the session. */
  async release(env: object, holder: object): Promise<void> {
    const link = this.links.get(env);
    if (!link || !link.holders.delete(holder) || link.holders.size > 0) return;
    this.links.delete(env);
    const pending = link.attempt;
    link.attempt = null;
    link.connection = null;
    const connection = await pending?.catch(() => null);
    await connection?.close();
  }

  private linkOf(env: object): Link {
    let link = this.links.get(env);
    if (!link) {
      link = { holders: new Set(), attempt: null, connection: null, failure: null, reported: false };
      this.links.set(env, link);
    }
    return link;
  }
}
