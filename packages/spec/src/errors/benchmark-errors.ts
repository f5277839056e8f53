import { DebugGymError, type DebugGymErrorOptions } from './debug-gym-error.js';

export interface BenchmarkDataErrorOptions extends DebugGymErrorOptions {
  /** The file or folder that is missing or wrong. */
  file?: string;
  /** What the user can do about it. */
  fix?: string;
}

/** A benchmark's data is missing, corrupt or partial. The message names the file and the fix. */
export class BenchmarkDataError extends DebugGymError {
  readonly file: string | undefined;
  readonly fix: string | undefined;

  constructor(benchmark: string, problem: string, options: BenchmarkDataErrorOptions = {}) {
    const parts = [`${benchmark}: ${problem}`];
    if (options.file) parts.push(`File: ${options.file}`);
    if (options.fix) parts.push(`Fix: ${options.fix}`);
    super('DG_BENCH_DATA', parts.join('\n'), options);
    this.file = options.file;
    this.fix = options.fix;
  }
}

/** `--tasks` named ids the benchmark does not have. */
export class UnknownTaskError extends DebugGymError {
  readonly unknown: string[];

  constructor(benchmark: string, unknown: readonly string[], known: readonly string[]) {
    const shown = known.length > 30 ? `${known.slice(0, 30).join(', ')}, ... (${known.length} in all)` : known.join(', ');
    super('DG_BENCH_UNKNOWN_TASK', `${benchmark} has no task ${unknown.map((id) => `'${id}'`).join(', ')}. Known tasks: ${shown}.`);
    this.unknown = [...unknown];
  }
}

/** A known fix cannot be expressed as tool calls (e.g. a patch that deletes a file). */
export class SolutionError extends DebugGymError {
  constructor(message: string, options: DebugGymErrorOptions = {}) {
    super('DG_BENCH_SOLUTION', message, options);
  }
}
