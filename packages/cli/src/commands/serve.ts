import { constants } from 'node:os';
import { ExitError } from '../exit-error.js';
import type { ServePolicyOptions } from './serve-http.js';
import { createDispatcher, requestTooLarge } from '../serve/json-rpc.js';
import { createEnvServer } from '../serve/env-server.js';
import { readLines } from '../serve/read-lines.js';

export interface ServeOptions extends ServePolicyOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  cwd?: string;
  /** Where SIGINT/SIGTERM/SIGHUP are heard (default: the process; tests pass an emitter). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Longest request line accepted, in bytes (default: `DEBUG_GYM_SERVE_MAX_REQUEST_BYTES`, else 16 MiB). */
  maxRequestBytes?: number;
}

const DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024;

function maxRequestBytesFromEnv(): number {
  const value = Number(process.env.DEBUG_GYM_SERVE_MAX_REQUEST_BYTES);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_REQUEST_BYTES;
}

/**
 * `debug-gym serve`: JSON-RPC 2.0 over stdio, one message per line. Methods: `reset` (RepoEnv
 * options) → info, `step` ({name, arguments}) → info, `close`. Returns when the input ends (the
 * env is closed first). Only protocol lines go to the output; logs go to stderr. SIGINT, SIGTERM
 * and SIGHUP cancel the running request (answered with a DG_SERVE_SHUTTING_DOWN error), close the
 * env and throw ExitError(128 + signal number).
 */
export async function runServe(options: ServeOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const restoreConsole = output === process.stdout ? guardStdout() : () => {};
  const { input: _input, output: _output, signals: _signals, maxRequestBytes: _max, ...policy } = options;
  const server = createEnvServer(policy);
  const dispatcher = createDispatcher(server.methods, (error) => server.toRpcError(error));
  const maxRequestBytes = options.maxRequestBytes ?? maxRequestBytesFromEnv();
  let stoppedBy: NodeJS.Signals | undefined;
  let shutdown: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    if (stoppedBy) return;
    stoppedBy = signal;
    (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    shutdown = server.shutdown(signal);
  };
  const signals = options.signals ?? process;
  for (const signal of STOP_SIGNALS) signals.on(signal, stop);
  try {
    // One request at a time, in order: the env is stateful.
    for await (const item of readLines(input as AsyncIterable<Buffer | string>, maxRequestBytes)) {
      const reply = 'line' in item ? await dispatcher.handleLine(item.line) : requestTooLarge(item.bytes, maxRequestBytes);
      if (reply !== null) output.write(`${reply}\n`);
    }
  } catch (error) {
    if (!stoppedBy) throw error;
  } finally {
    await shutdown?.catch(() => undefined);
    await server.close().catch(() => undefined);
    for (const signal of STOP_SIGNALS) signals.off(signal, stop);
    restoreConsole();
  }
  if (stoppedBy) throw new ExitError(128 + constants.signals[stoppedBy], `debug-gym serve: stopped by ${stoppedBy}; running commands were killed and the environment closed.`);
}

/** Each ends the server at once: the running request is cancelled and answered with an error. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** console.log from any library would corrupt the protocol: send it to stderr while serving. */
function guardStdout(): () => void {
  const original = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, original);
}
