/** What a command run by the Docker helper returns to the agent, including the failures it can explain. */
import type { RunResult } from '@debug-gym/core';
import { NotADirectoryError, PathNotFoundError, normalizeOutput, truncationMarker } from '@debug-gym/core';
import { HelperKilledError, HelperOpError, type HelperResponse } from './docker-helper-client.js';
import { launchOf } from './fork-server.js';

/** The helper's `run` answer as a RunResult (output decoded, normalized, truncation marked). */
export function helperRunResult(response: HelperResponse, started: number): RunResult {
  const dropped = Number(response.dropped ?? 0);
  let text = Buffer.from(String(response.out ?? ''), 'base64').toString('utf8');
  if (dropped > 0) text += truncationMarker(dropped);
  const launch = launchOf(response);
  return {
    exitCode: typeof response.exit === 'number' ? response.exit : null,
    output: normalizeOutput(text),
    timedOut: response.timedOut === true,
    droppedBytes: dropped,
    durationMs: Date.now() - started,
    ...(launch ? { launch } : {}),
  };
}

/**
 * A `run` request that failed: a bad `cwd` throws; a command that could not start, or that killed
 * the helper, becomes a result telling the agent; anything else is rethrown.
 */
export function runFailure(error: unknown, started: number, cwd: string, workdir: string): RunResult {
  if (error instanceof HelperOpError) {
    if (error.errno === 'ENOENT') throw new PathNotFoundError(cwd, workdir);
    if (error.errno === 'ENOTDIR') throw new NotADirectoryError(cwd);
    // The command could not be started (e.g. EAGAIN: the pids limit is used up). Tell the agent.
    const hint = error.errno === 'EAGAIN' ? ' The sandbox process limit is used up: kill some processes or reset.' : '';
    return {
      exitCode: null,
      output: `debug-gym: could not start the command: ${error.message}.${hint}`,
      timedOut: false,
      droppedBytes: 0,
      durationMs: Date.now() - started,
    };
  }
  if (error instanceof HelperKilledError) {
    return {
      exitCode: null,
      output: 'The command killed the sandbox helper process (e.g. `pkill python`); its output was lost. The sandbox is still running.',
      timedOut: false,
      droppedBytes: 0,
      durationMs: Date.now() - started,
    };
  }
  throw error;
}
