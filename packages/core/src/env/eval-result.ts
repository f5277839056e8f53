import { cleanupPytestOutput, parsePytestOutput, type PytestSummary } from '../pytest/index.js';
import { scorePytestReport, type StructuredPytestRun } from '../scoring/score-pytest-report.js';
import type { LaunchInfo, RunResult, Terminal } from '../terminal/index.js';

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

/**
 * Score = passed tests, maxScore = collected tests; collection errors and timeouts score 0. From the
 * report when the run has one (`run.structured`), else parsed from the output.
 */
export const pytestScorer: Scorer = (run) => {
  const summary = parsePytestOutput(run.output);
  const cleaned = cleanupPytestOutput(run.output);
  if (run.structured && !run.timedOut) {
    const scored = scorePytestReport(run.structured, run.exitCode);
    const output = scored.notes.length > 0 ? `${cleaned.replace(/\n+$/, '')}\n\n${scored.notes.join('\n')}` : cleaned;
    return { output, score: scored.score, maxScore: scored.maxScore, success: scored.success, details: scored.details };
  }
  if (run.timedOut) {
    const expected = run.structured?.expected;
    // The pristine repository's tests are the maximum whatever this run managed to print.
    const knownMax = expected ? Math.max(expected.ids.length + expected.modules.length, 1) : summary.collected !== null ? Math.max(summary.collected, 1) : null;
    return {
      output: `Command timed out after ${Math.round(run.timeoutMs / 1000)} seconds${cleaned.trim() ? `\nPartial output:\n${cleaned}` : ''}`,
      score: 0,
      maxScore: knownMax,
      success: false,
      details: summary,
    };
  }
  if (summary.collectionError) return { output: cleaned, score: 0, maxScore: null, success: false, details: summary };
  const maxScore = summary.summaryFound || summary.collected !== null ? Math.max(summary.total, 1) : null;
  const score = summary.passed;
  return { output: cleaned, score, maxScore, success: run.exitCode === 0 && maxScore !== null && score >= maxScore, details: summary };
};
