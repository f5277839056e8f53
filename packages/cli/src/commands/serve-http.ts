import { constants } from 'node:os';
import { createHttpServer, type DebugGymHttpServer } from '@debug-gym/server';
import { parseMemory } from '@debug-gym/terminal';
import type { TerminalType } from '@debug-gym/terminal';
import { ExitError } from '../exit-error.js';
import { ConfigError } from '../config/config-error.js';
import { servePolicy } from '../serve/serve-policy.js';
import { resolveServerToken } from '../serve/server-token.js';

/** What a client may name, for both `serve` transports (see @debug-gym/server's plugin and host policies). */
export interface ServePolicyOptions {
  /** Plugin specifiers (package names, paths) clients may name besides installed plugins' names. */
  allowPlugin?: string[];
  /** Clients may name any plugin path or package: they can then run code on this host. */
  allowPluginPaths?: boolean;
  /** Repositories, data paths and read-only paths clients name must lie inside these folders. */
  repoRoot?: string[];
  /** Accept `benchmark_options` (URLs and commits the server fetches) from clients. */
  allowBenchmarkOptions?: boolean;
}

export interface ServeHttpOptions extends ServePolicyOptions {
  host?: string;
  port?: number;
  /** On the command line (public on this host: a warning is printed). Default: `DEBUG_GYM_TOKEN`, then `DEBUG_GYM_SERVER_TOKEN`. */
  token?: string;
  /** A file holding the token. */
  tokenFile?: string;
  maxSessions?: number;
  /** Memory all sandboxes may claim together: bytes or `20g` (default: the host's memory less 1 GiB). */
  memoryBudget?: string;
  /** Processes all sandboxes may claim together (default: pid_max less 4096). */
  pidsBudget?: number;
  /** Seconds; 0 never reaps. */
  idleTtl?: number;
  /** Seconds; 0 no limit. */
  stepTimeout?: number;
  maxBodyBytes?: number;
  allowLocal?: boolean;
  /** The sandbox when a reset names none (default auto). */
  terminal?: TerminalType;
  logLevel?: string;
  cwd?: string;
  /** Where SIGINT/SIGTERM/SIGHUP are heard (default: the process; tests pass an emitter). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Told the address once listening (tests); the line on stderr is printed either way. */
  onListening?: (server: DebugGymHttpServer, url: string) => void;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Where the server's token is read from, first set wins (DEBUG_GYM_SERVER_TOKEN: the earlier name). */
export const TOKEN_VARIABLES = ['DEBUG_GYM_TOKEN', 'DEBUG_GYM_SERVER_TOKEN'] as const;

function memoryBytes(value: string): number {
  try {
    return parseMemory(/^\d+$/.test(value) ? Number(value) : value);
  } catch {
    throw new ConfigError(`--memory-budget must be bytes or a size such as 20g or 512m (got ${JSON.stringify(value)}).`);
  }
}

/**
 * `debug-gym serve --http`: the many-session HTTP + WebSocket server until a termination signal,
 * which closes every session (killing running commands, removing sandboxes) and throws
 * ExitError(128 + signal number). Prints `debug-gym server listening on http://HOST:PORT` on stderr.
 */
export async function runHttpServe(options: ServeHttpOptions = {}): Promise<void> {
  const token = resolveServerToken({ flag: options.token, file: options.tokenFile, envNames: TOKEN_VARIABLES });
  const cwd = options.cwd ?? process.cwd();
  const server = await createHttpServer({
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(token ? { token } : {}),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    ...(options.memoryBudget !== undefined ? { memoryBudgetBytes: memoryBytes(options.memoryBudget) } : {}),
    ...(options.pidsBudget !== undefined ? { pidsBudget: options.pidsBudget } : {}),
    ...servePolicy(options, cwd),
    ...(options.idleTtl !== undefined ? { idleTtlSeconds: options.idleTtl } : {}),
    ...(options.stepTimeout !== undefined ? { stepTimeoutSeconds: options.stepTimeout } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.allowLocal !== undefined ? { allowLocal: options.allowLocal } : {}),
    ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
    defaultTerminal: { type: options.terminal ?? 'auto' },
  });
  const signals = options.signals ?? process;
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    let first: NodeJS.Signals | undefined;
    stop = (signal) => {
      // The same signal again: the user insists, leave at once (leases let `debug-gym gc` reclaim the rest).
      if (first && signals === process) process.exit(128 + constants.signals[signal]);
      first ??= signal;
      resolve(signal);
    };
  });
  for (const signal of STOP_SIGNALS) signals.on(signal, stop);
  try {
    const { url } = await server.listen();
    process.stderr.write(`debug-gym server listening on ${url}\n`);
    options.onListening?.(server, url);
    const signal = await stopped;
    const open = server.sessions.size;
    await server.close(`the server is shutting down (${signal})`);
    throw new ExitError(128 + constants.signals[signal], `debug-gym serve: stopped by ${signal}; ${open} session${open === 1 ? '' : 's'} closed, their sandboxes removed.`);
  } finally {
    for (const signal of STOP_SIGNALS) signals.off(signal, stop);
    await server.close().catch(() => undefined);
  }
}
