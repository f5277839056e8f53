import { constants } from 'node:os';
import { serveMcpStdio, startMcpHttpServer, STOP_SIGNALS, type SignalSource } from '@debug-gym/mcp';
import { ExitError } from '../exit-error.js';
import { resolveMcpEnvironment, type McpEnvironmentOptions } from '../mcp/mcp-environment.js';
import { resolveServerToken } from '../serve/server-token.js';

export interface McpCommandOptions extends Omit<McpEnvironmentOptions, 'cwd' | 'warn'> {
  /** Streamable HTTP instead of stdio. */
  http?: boolean;
  host?: string;
  port?: number;
  /** Bearer token for HTTP, on the command line (public on this host: a warning is printed). Default: DEBUG_GYM_MCP_TOKEN, then DEBUG_GYM_TOKEN. */
  token?: string;
  /** A file holding the HTTP bearer token. */
  tokenFile?: string;
  maxSessions?: number;
  /** Where SIGINT/SIGTERM/SIGHUP are heard (tests pass an emitter). */
  signals?: SignalSource;
  /** Where the logs go (default: stderr). */
  log?: (text: string) => void;
}

/**
 * `debug-gym mcp`: serve an env's tools over MCP, on stdio (default) or Streamable HTTP. Logs go to
 * stderr. Ends when the client closes stdin (stdio) or on SIGINT/SIGTERM/SIGHUP, after closing every
 * env; a signal ends with ExitError(128 + its number).
 */
export async function runMcp(options: McpCommandOptions = {}): Promise<void> {
  const log = options.log ?? ((text: string): void => void process.stderr.write(`${text}\n`));
  const environment = await resolveMcpEnvironment({ ...options, warn: log });
  const what = `${environment.task.id} (${environment.task.path}) with ${environment.toolNames.join(', ')}, ${environment.terminalType} terminal`;
  const signals = options.signals ?? process;
  if (!options.http) {
    const result = await serveMcpStdio({
      createEnv: environment.createEnv,
      instructionsNote: environment.instructionsNote,
      signals,
      onReady: () => log(`debug-gym mcp: serving ${what} over stdio.`),
    });
    if (result.signal) throw stoppedBy(result.signal);
    return;
  }
  const token = resolveServerToken({ flag: options.token, file: options.tokenFile, envNames: ['DEBUG_GYM_MCP_TOKEN', 'DEBUG_GYM_TOKEN'], warn: log });
  const server = await startMcpHttpServer({
    createEnv: environment.createEnv,
    instructionsNote: environment.instructionsNote,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(token ? { token } : {}),
    ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
  });
  log(`debug-gym mcp: serving ${what} at ${server.url}${token ? ' (Bearer token required)' : ''}; each session gets its own sandbox.`);
  const signal = await firstSignal(signals);
  await server.close();
  throw stoppedBy(signal);
}

function firstSignal(signals: SignalSource): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      for (const name of STOP_SIGNALS) signals.off(name, onSignal);
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) signals.on(name, onSignal);
  });
}

function stoppedBy(signal: NodeJS.Signals): ExitError {
  return new ExitError(128 + constants.signals[signal], `debug-gym mcp: stopped by ${signal}; the environments were closed and their sandboxes removed.`);
}

