import { DebugGymError } from '@debug-gym/core';

/** A request the server refuses, with the HTTP status it is answered with. Also carried over WebSocket and stdio. */
export class ServerError extends DebugGymError {
  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code, message);
  }
}

/** The request is not what the endpoint takes (wrong keys, wrong types). `issues` says what, one line each. */
export class InvalidRequestError extends ServerError {
  constructor(what: string, readonly issues: string[]) {
    super('DG_INVALID_REQUEST', `Invalid ${what}: ${issues.join(' ')}`, 422, { issues });
  }
}

export class UnknownSessionError extends ServerError {
  constructor(id: string) {
    super('DG_UNKNOWN_SESSION', `No session '${id}' on this server: reset first (POST /reset), or check that the request reached the server that holds the session.`, 404, { session_id: id });
  }
}

/** The session existed and was closed: by the client, the idle TTL, a step timeout or shutdown. */
export class SessionClosedError extends ServerError {
  constructor(id: string, readonly reason: string) {
    super('DG_SESSION_CLOSED', `Session '${id}' was closed (${reason}): reset to start a new one.`, 410, { session_id: id, reason });
  }
}

export class SessionBusyError extends ServerError {
  constructor(id: string, running: string) {
    super('DG_SESSION_BUSY', `Session '${id}' is still running a ${running}: send one request at a time per session (wait for the answer).`, 409, { session_id: id });
  }
}

/** `step` after the episode ended (resolved, submitted, sandbox died, step timed out). */
export class EpisodeDoneError extends ServerError {
  constructor(id: string, reason: string) {
    super('DG_EPISODE_DONE', `The episode of session '${id}' is over (${reason}): reset to start a new one.`, 409, { session_id: id, reason });
  }
}

export class StepTimeoutError extends ServerError {
  constructor(id: string, seconds: number) {
    super(
      'DG_STEP_TIMEOUT',
      `The step ran longer than ${seconds} s in session '${id}': it was cancelled and its sandbox closed, so the episode is over. Reset to start again (and give long commands their own timeout).`,
      504,
      { session_id: id, timeout_s: seconds },
    );
  }
}

/** Every session slot is taken: answered with 503 and a Retry-After. */
export class ServerFullError extends ServerError {
  constructor(
    maxSessions: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'DG_SERVER_FULL',
      `The server holds its maximum of ${maxSessions} sessions: retry in ${retryAfterSeconds} s, close sessions you no longer use, or reset on another server.`,
      503,
      { max_sessions: maxSessions, retry_after_s: retryAfterSeconds },
    );
  }
}

/**
 * A reset names a plugin by a path or package specifier (a module the server would import on its
 * own host), or a plugin this server does not allow. Clients name installed plugins by name.
 */
export class PluginNotAllowedError extends ServerError {
  constructor(kind: 'tool' | 'benchmark', name: string, available: readonly string[]) {
    super(
      'DG_PLUGIN_NOT_ALLOWED',
      `This server does not load a ${kind} from a path or package specifier a client sends (${JSON.stringify(name)}): a client names a ${kind} installed on the server by its name` +
        `${available.length > 0 ? ` (${available.join(', ')})` : ''}. The operator can allow this one with \`--allow-plugin ${name}\`, ` +
        'or every path and package with `--allow-plugin-paths` (then any client can run code on the server\'s host).',
      403,
      { kind, name, available: [...available] },
    );
  }
}

/**
 * A reset sets something that acts on the server's own host, not inside the sandbox: a program it
 * runs (`terminal.bwrap_path`, an interpreter it probes), a host path outside the operator's
 * `--repo-root`, a network that is not the sandbox's own, or benchmark options it would fetch.
 */
export class ParamNotAllowedError extends ServerError {
  constructor(param: string, message: string) {
    super('DG_PARAM_NOT_ALLOWED', message, 403, { param });
  }
}

/** Host resources every sandbox may take, summed over the sessions. */
export interface BudgetNumbers {
  memory_bytes: { requested: number; in_use: number; budget: number };
  pids: { requested: number; in_use: number; budget: number };
}

/** The sessions' sandboxes already claim what the host has: try again when some close. */
export class BudgetExhaustedError extends ServerError {
  constructor(
    numbers: BudgetNumbers,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'DG_SERVER_BUDGET_EXHAUSTED',
      `The server's sandboxes would take more than this host has: ${describeBudget(numbers)}. Retry in ${retryAfterSeconds} s, close sessions you no longer use, ask for smaller sandboxes ` +
        '(terminal memory / pids_limit / max_processes), or reset on another server.',
      503,
      { ...numbers, retry_after_s: retryAfterSeconds },
    );
  }
}

/** One sandbox asks for more than the whole host budget: no wait makes room for it. */
export class SandboxOverBudgetError extends ServerError {
  constructor(numbers: BudgetNumbers) {
    super(
      'DG_SANDBOX_OVER_BUDGET',
      `This sandbox alone asks for more than the server's whole budget: ${describeBudget(numbers)}. Ask for a smaller sandbox (terminal memory / pids_limit / max_processes), ` +
        'or have the operator raise --memory-budget / --pids-budget.',
      422,
      { ...numbers },
    );
  }
}

function describeBudget(numbers: BudgetNumbers): string {
  const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  const { memory_bytes: memory, pids } = numbers;
  return (
    `memory ${gib(memory.requested)} asked, ${gib(memory.in_use)} held by open sessions, budget ${gib(memory.budget)}; ` +
    `processes ${pids.requested} asked, ${pids.in_use} held, budget ${pids.budget}`
  );
}
