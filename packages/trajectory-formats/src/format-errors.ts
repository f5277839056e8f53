import { DebugGymError, type DebugGymErrorOptions } from '@debug-gym/spec';

/** An input of the export: a path that is missing, holds no trajectory, or clashes with another. */
export class ExportInputError extends DebugGymError {
  constructor(message: string, options?: DebugGymErrorOptions) {
    super('DG_EXPORT_INPUT', message, options);
  }
}

/** A file in another trajectory format (ATIF, the original's) that does not follow that format; `path` names the field. */
export class ForeignTrajectoryError extends DebugGymError {
  readonly path: string;
  constructor(file: string, format: string, path: string, problem: string, options?: DebugGymErrorOptions) {
    super('DG_TRAJECTORY_FOREIGN_INVALID', `${file} is not a valid ${format} trajectory: ${path ? `${path} ` : ''}${problem}`, options);
    this.path = path;
  }
}
