import { DebugGymError, type DebugGymErrorOptions } from '@debug-gym/spec';

/** A trajectory file is not valid JSON or lacks a required field; `path` names the offending field. */
export class TrajectoryFormatError extends DebugGymError {
  readonly path: string;
  constructor(file: string, path: string, problem: string, options?: DebugGymErrorOptions) {
    super('DG_TRAJECTORY_INVALID', `${file} is not a valid debug-gym trajectory: ${path ? `${path} ` : ''}${problem}`, options);
    this.path = path;
  }
}

/** A trajectory written in a format version this debug-gym does not read (usually: a newer one). */
export class TrajectoryVersionError extends DebugGymError {
  readonly found: string;
  constructor(file: string, found: string, supported: string) {
    super(
      'DG_TRAJECTORY_VERSION',
      `${file} has trajectory format '${found}', but this debug-gym reads '${supported}'. Upgrade @debug-gym/agents to read it.`,
    );
    this.found = found;
  }
}
