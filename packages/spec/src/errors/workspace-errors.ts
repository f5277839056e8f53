import { DebugGymError } from './debug-gym-error.js';

/** Any refused or failed file operation in the working copy; its message is shown to the agent. */
export class WorkspaceError extends DebugGymError {}

export class PathOutsideWorkspaceError extends WorkspaceError {
  constructor(path: string, workdir: string) {
    super('DG_WORKSPACE_OUTSIDE', `\`${path}\` is not within the workspace directory \`${workdir}\`. Use a path relative to it.`);
  }
}

export class PathNotFoundError extends WorkspaceError {
  constructor(path: string, workdir: string) {
    super('DG_WORKSPACE_NOT_FOUND', `\`${path}\` does not exist or is not in the working directory \`${workdir}\`.`);
  }
}

export class ReadOnlyPathError extends WorkspaceError {
  constructor(path: string) {
    super('DG_WORKSPACE_READONLY', `\`${path}\` is not editable: it is read-only in this task (.debugreadonly).`);
  }
}

export class NotAFileError extends WorkspaceError {
  constructor(path: string, actual: string) {
    super('DG_WORKSPACE_NOT_A_FILE', `\`${path}\` is a ${actual}, not a file.`);
  }
}

export class NotADirectoryError extends WorkspaceError {
  constructor(path: string) {
    super('DG_WORKSPACE_NOT_A_DIRECTORY', `\`${path}\` is not a directory.`);
  }
}

export class FileTooLargeError extends WorkspaceError {
  constructor(
    path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(
      'DG_WORKSPACE_TOO_LARGE',
      `\`${path}\` is too large to read (${formatBytes(size)}; the limit is ${formatBytes(maxBytes)}). ` +
        'Look at part of it instead, e.g. with `grep` or by viewing a smaller file.',
    );
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

export class BinaryFileError extends WorkspaceError {
  constructor(path: string) {
    super('DG_WORKSPACE_BINARY', `\`${path}\` is a binary or non-UTF-8 file; it cannot be shown or edited as text.`);
  }
}
