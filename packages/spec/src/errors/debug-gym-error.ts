const MARKER = Symbol.for('debug-gym.error');

export interface DebugGymErrorOptions {
  cause?: unknown;
}

/**
 * Base class of every error debug-gym throws. `code` is stable (`DG_<AREA>_<WHAT>`) so callers can
 * branch on it; `isInstance` works across duplicated copies of the package, where `instanceof` does not.
 */
export class DebugGymError extends Error {
  readonly code: string;
  readonly [MARKER] = true;

  constructor(code: string, message: string, options: DebugGymErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  /**
   * `XError.isInstance(e)`: `e` is a debug-gym error of class `XError` or a subclass of it (by class
   * name along the prototype chain, so it also holds for errors from another copy of this package).
   */
  static isInstance<T extends DebugGymError>(this: abstract new (...args: never[]) => T, error: unknown): error is T {
    if (typeof error !== 'object' || error === null || (error as Record<symbol, unknown>)[MARKER] !== true) return false;
    if ((this as unknown) === DebugGymError || error instanceof this) return true;
    for (let proto: unknown = Object.getPrototypeOf(error); proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
      if ((proto as { constructor?: { name?: string } }).constructor?.name === this.name) return true;
    }
    return false;
  }

  /** True when `error` is a DebugGymError with this `code`. */
  static hasCode(error: unknown, code: string): boolean {
    return DebugGymError.isInstance(error) && error.code === code;
  }
}
