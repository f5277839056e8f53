export { DebugGymError, type DebugGymErrorOptions } from './debug-gym-error.js';
export {
  CommandTimeoutError,
  SandboxUnavailableError,
  SessionClosedError,
  TerminalNotStartedError,
  UnrecoverableTerminalError,
  formatSeconds,
} from './terminal-errors.js';
export {
  BinaryFileError,
  FileTooLargeError,
  NotADirectoryError,
  NotAFileError,
  PathNotFoundError,
  PathOutsideWorkspaceError,
  ReadOnlyPathError,
  WorkspaceError,
} from './workspace-errors.js';
export { DuplicateToolError, PluginLoadError, PluginManifestError, SpecVersionError } from './plugin-load-error.js';
export { EnvConfigError, EnvNotReadyError } from './env-errors.js';
export { BenchmarkDataError, SolutionError, UnknownTaskError, type BenchmarkDataErrorOptions } from './benchmark-errors.js';
