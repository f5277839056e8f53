import type { LaunchInfo, RunResult, Terminal } from '../terminal/index.js';
import type { PytestSummary, StructuredPytestRun } from '../scoring/pytest-types.js';

/** What one run of the entrypoint produced, and how it scored. */
export interface EvalResult {
  /** Output shown to the agent (normalized, cleaned up, capped). */
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  score: number;
  /** Null when this run could not tell (timeout, collection error): the env keeps the last known value. */
  maxScore: number | null;
  /** All tests passed (exit code 0 and score == maxScore). */
  success: boolean;
  /** Scorer-specific detail, e.g. pytest counts. */
  details?: PytestSummary | Record<string, unknown>;
  /** How the test process was started: forked by the sandbox's fork server, or cold (and why). */
  launch?: LaunchInfo;
}

export interface RawRun {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  timeoutMs: number;
  /**
   * Set when the run went through debug-gym's pytest launcher: the report pytest's plugin wrote,
   * which the score is taken from instead of the output.
   */
  structured?: StructuredPytestRun;
  /** How the process was started (when the terminal was asked to fork it). */
  launch?: LaunchInfo;
}

/** Turns a raw entrypoint run into a score. Benchmarks with other rules (SWE-bench) pass their own. */
export type Scorer = (run: RawRun) => Omit<EvalResult, 'durationMs' | 'exitCode' | 'timedOut' | 'launch'>;

export interface EvalProcedureContext {
  terminal: Terminal;
  /** The normalized entrypoint (what a plain evaluation runs). */
  entrypoint: string;
  timeoutMs: number;
}

/**
 * Runs one evaluation in place of the plain entrypoint run, e.g. SWE-bench's: restore the test
 * files, apply the hidden test patch, run the tests, restore them again. Its output goes to the scorer.
 */
export type EvalProcedure = (context: EvalProcedureContext) => Promise<RunResult>;
