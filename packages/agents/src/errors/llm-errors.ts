import { DebugGymError, type DebugGymErrorOptions } from '@debug-gym/spec';

/** `llm.yaml` is missing, malformed, or names an unknown model; or a model was configured inconsistently. */
export class LlmConfigError extends DebugGymError {
  constructor(message: string, options?: DebugGymErrorOptions) {
    super('DG_LLM_CONFIG', message, options);
  }
}

/** The LLM endpoint failed for good (after retries, or with an error that retrying cannot fix). */
export class LlmRequestError extends DebugGymError {
  /** HTTP status, when the endpoint answered. */
  readonly status: number | undefined;
  /** How many attempts were made. */
  readonly attempts: number;
  constructor(message: string, details: { status?: number; attempts: number }, options?: DebugGymErrorOptions) {
    super('DG_LLM_REQUEST_FAILED', message, options);
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

/** The prompt does not fit the model's context window (never retried as is: the caller must shrink it). */
export class ContextLengthExceededError extends DebugGymError {
  constructor(message: string, options?: DebugGymErrorOptions) {
    super('DG_LLM_CONTEXT_LENGTH_EXCEEDED', message, options);
  }
}

/** A replay model has no recorded call left. The agent ends the episode when it sees this. */
export class ReplayExhaustedError extends DebugGymError {
  constructor(replayed: number) {
    super('DG_LLM_REPLAY_EXHAUSTED', `The replayed session has no more tool calls (${replayed} replayed).`);
  }
}

/** The person at the human prompt ended the session (quit, Ctrl-D or Ctrl-C). */
export class HumanQuitError extends DebugGymError {
  constructor() {
    super('DG_LLM_HUMAN_QUIT', 'The human model ended the session.');
  }
}
