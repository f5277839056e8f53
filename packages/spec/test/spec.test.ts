import { describe, expect, it } from 'vitest';
import {
  BenchmarkDataError,
  BinaryFileError,
  CommandTimeoutError,
  DebugGymError,
  DuplicateToolError,
  EnvConfigError,
  EnvNotReadyError,
  FileTooLargeError,
  NotADirectoryError,
  NotAFileError,
  PathNotFoundError,
  PathOutsideWorkspaceError,
  ReadOnlyPathError,
  SPEC_VERSION,
  SandboxUnavailableError,
  SessionClosedError,
  SolutionError,
  TerminalNotStartedError,
  UnknownTaskError,
  UnrecoverableTerminalError,
  WorkspaceError,
  defineBenchmark,
  formatSeconds,
  isBenchmark,
  isToolPlugin,
  specVersionProblem,
  type BenchmarkV1,
} from '../src/index.js';

describe('specVersionProblem', () => {
  it.each([
    ['1.0', '1.0', null],
    ['1.0', '1.3', null],
    ['1.4', '1.3', 'upgrade debug-gym'],
    ['2.0', '1.3', 'upgrade debug-gym'],
    ['0.9', '1.3', 'pnpm add pkg@latest'],
    ['1', '1.3', "must be a 'major.minor' string"],
    [undefined, '1.3', "must be a 'major.minor' string"],
  ])('plugin %s on host %s → %s', (plugin, host, expected) => {
    const problem = specVersionProblem(plugin, 'pkg', host);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });

  it('accepts plugins written against this spec', () => {
    expect(specVersionProblem(SPEC_VERSION, 'pkg')).toBeNull();
  });
});

describe('errors', () => {
  it.each([
    [new CommandTimeoutError('sleep 9', 1500), 'DG_TERMINAL_TIMEOUT', 'timed out after 1.5 seconds'],
    [new SessionClosedError('gone'), 'DG_TERMINAL_SESSION_CLOSED', 'gone'],
    [new SandboxUnavailableError('no docker'), 'DG_TERMINAL_UNAVAILABLE', 'no docker'],
    [new UnrecoverableTerminalError('died.'), 'DG_TERMINAL_UNRECOVERABLE', 'reset()'],
    [new TerminalNotStartedError('local'), 'DG_TERMINAL_NOT_STARTED', 'local'],
    [new PathOutsideWorkspaceError('../x', '/w'), 'DG_WORKSPACE_OUTSIDE', '/w'],
    [new PathNotFoundError('x', '/w'), 'DG_WORKSPACE_NOT_FOUND', 'does not exist'],
    [new ReadOnlyPathError('x'), 'DG_WORKSPACE_READONLY', 'read-only'],
    [new NotAFileError('x', 'directory'), 'DG_WORKSPACE_NOT_A_FILE', 'directory'],
    [new NotADirectoryError('x'), 'DG_WORKSPACE_NOT_A_DIRECTORY', 'not a directory'],
    [new FileTooLargeError('x', 3 * 1024 * 1024, 1024), 'DG_WORKSPACE_TOO_LARGE', '3.0 MiB; the limit is 1.0 KiB'],
    [new BinaryFileError('x'), 'DG_WORKSPACE_BINARY', 'binary'],
    [new DuplicateToolError('pdb'), 'DG_TOOL_DUPLICATE', 'pdb'],
    [new EnvConfigError('bad'), 'DG_ENV_CONFIG', 'bad'],
    [new EnvNotReadyError('step()'), 'DG_ENV_NOT_READY', 'reset()'],
  ])('%s has a stable code and says what to do', (error, code, text) => {
    expect(DebugGymError.isInstance(error)).toBe(true);
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
  });

  it('keeps workspace errors under WorkspaceError and benchmark errors under DebugGymError', () => {
    expect(WorkspaceError.isInstance(new BinaryFileError('x'))).toBe(true);
    expect(DebugGymError.isInstance(new BenchmarkDataError('aider', 'broken'))).toBe(true);
    expect(DebugGymError.isInstance(new SolutionError('no fix'))).toBe(true);
    expect(new UnknownTaskError('aider', ['x'], ['a', 'b']).message).toContain('x');
  });

  it('formats seconds the way timeout messages show them', () => {
    expect(formatSeconds(2000)).toBe('2');
    expect(formatSeconds(1250)).toBe('1.3');
  });
});

describe('defineBenchmark and the shape guards', () => {
  const benchmark: BenchmarkV1 = {
    specificationVersion: 'benchmark-v1',
    name: 'demo',
    description: 'd',
    loadTasks: async () => ({ benchmark: 'demo', source: 'x', tasks: [], complete: true, warnings: [] }),
  };

  it('accepts a well-formed benchmark and refuses malformed ones', () => {
    expect(defineBenchmark(benchmark)).toBe(benchmark);
    expect(isBenchmark(benchmark)).toBe(true);
    expect(() => defineBenchmark({ ...benchmark, specificationVersion: 'x' as never })).toThrow("must declare specificationVersion: 'benchmark-v1'");
    expect(() => defineBenchmark({ ...benchmark, name: 'Not Kebab' })).toThrow('kebab-case');
    expect(() => defineBenchmark({ ...benchmark, loadTasks: undefined as never })).toThrow('has no loadTasks()');
    expect(() => defineBenchmark({ ...benchmark, meta: null as never })).toThrow('meta must be');
    expect(isToolPlugin(benchmark)).toBe(false);
  });
});
