import type { Scorer } from '@debug-gym/spec';
import { cleanupPytestOutput, parsePytestOutput } from './parse-pytest-output.js';
import { scorePytestReport } from './score-pytest-report.js';

/**
 * Score = passed tests, maxScore = collected tests; collection errors and timeouts score 0. From the
 * report when the run has one (`run.structured`), else parsed from the output.
 */
export const pytestScorer: Scorer = (run) => {
  const summary = parsePytestOutput(run.output);
  const cleaned = cleanupPytestOutput(run.output);
  if (run.structured && !run.timedOut) {
    const scored = scorePytestReport(run.structured, run.exitCode);
    const output = scored.notes.length > 0 ? `${trimNewlinesEnd(cleaned)}\n\n${scored.notes.join('\n')}` : cleaned;
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

/** The text without its trailing newlines (a scan: `/\n+$/` is quadratic on a run of newlines that does not end the text). */
function trimNewlinesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return text.slice(0, end);
}
