import { createDispatcher, requestTooLarge } from '../serve/json-rpc.js';
import { createEnvServer } from '../serve/env-server.js';
import { readLines } from '../serve/read-lines.js';

export interface ServeOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  cwd?: string;
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
 * env is closed first). Only protocol lines go to the output; logs go to stderr.
 */
export async function runServe(options: ServeOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const restoreConsole = output === process.stdout ? guardStdout() : () => {};
  const server = createEnvServer(options.cwd ? { cwd: options.cwd } : {});
  const dispatcher = createDispatcher(server.methods, (error) => server.toRpcError(error));
  const maxRequestBytes = options.maxRequestBytes ?? maxRequestBytesFromEnv();
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  };
  process.on('SIGTERM', stop);
  try {
    // One request at a time, in order: the env is stateful.
    for await (const item of readLines(input as AsyncIterable<Buffer | string>, maxRequestBytes)) {
      const reply = 'line' in item ? await dispatcher.handleLine(item.line) : requestTooLarge(item.bytes, maxRequestBytes);
      if (reply !== null) output.write(`${reply}\n`);
    }
  } catch (error) {
    if (!stopped) throw error;
  } finally {
    process.off('SIGTERM', stop);
    await server.close().catch(() => undefined);
    restoreConsole();
  }
}

/** console.log from any library would corrupt the protocol: send it to stderr while serving. */
function guardStdout(): () => void {
  const original = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, original);
}
