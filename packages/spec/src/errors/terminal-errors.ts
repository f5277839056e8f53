import { DebugGymError, type DebugGymErrorOptions } from './debug-gym-error.js';

/** A command or session read ran past its time limit. */
export class CommandTimeoutError extends DebugGymError {
  readonly timeoutMs: number;
  readonly partialOutput: string;
  constructor(command: string, timeoutMs: number, partialOutput = '', options?: DebugGymErrorOptions) {
    super(
      'DG_TERMINAL_TIMEOUT',
      `Command \`${command}\` timed out after ${formatSeconds(timeoutMs)} seconds. ` +
        'It was interrupted; run something shorter or raise `runTimeout`.',
      options,
    );
    this.timeoutMs = timeoutMs;
    this.partialOutput = partialOutput;
  }
}

/** The interactive session is gone (closed by us, or its process exited). Open a new one. */
export class SessionClosedError extends DebugGymError {
  constructor(detail: string, options?: DebugGymErrorOptions) {
    super('DG_TERMINAL_SESSION_CLOSED', `The interactive session is closed: ${detail}. Start a new session.`, options);
  }
}

/** The sandbox cannot be used here (no Docker engine, bwrap missing or not permitted, ...). */
export class SandboxUnavailableError extends DebugGymError {
  constructor(message: string, options?: DebugGymErrorOptions) {
    super('DG_TERMINAL_UNAVAILABLE', message, options);
  }
}

/**
 * The sandbox died under the episode (container removed, PTY host gone). The current step cannot
 * complete; `env.reset()` starts a fresh sandbox.
 */
export class UnrecoverableTerminalError extends DebugGymError {
  constructor(message: string, options?: DebugGymErrorOptions) {
    super('DG_TERMINAL_UNRECOVERABLE', `${message} Call reset() to start a fresh sandbox.`, options);
  }
}

/** The terminal was used before `start()` or after `close()`. */
export class TerminalNotStartedError extends DebugGymError {
  constructor(kind: string) {
    super('DG_TERMINAL_NOT_STARTED', `The ${kind} terminal is not started: call start() (env.reset() does) before using it.`);
  }
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1);
}
