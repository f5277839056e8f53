import { DebugGymError } from './debug-gym-error.js';

/** `step()` was called before `reset()`, or after `close()`. */
export class EnvNotReadyError extends DebugGymError {
  constructor(what: string) {
    super('DG_ENV_NOT_READY', `${what}: call env.reset() first.`);
  }
}

/** The env options are invalid (missing repository path, unknown terminal, ...). */
export class EnvConfigError extends DebugGymError {
  constructor(message: string) {
    super('DG_ENV_CONFIG', message);
  }
}
