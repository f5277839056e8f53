import { type PytestSummary, type Scorer } from '@debug-gym/spec';
import { pytestScorer } from '@debug-gym/plugin-kit';

/**
 * pytest counts, except that tests the test file itself skips (`@unittest.skip`) do not count toward
 * the max score: with the original's rule (max = collected) `alphametics`, whose file skips an
 * "extra-credit" test, could never be resolved.
 */
export const aiderScorer: Scorer = (run) => {
  const result = pytestScorer(run);
  const details = result.details as PytestSummary | undefined;
  if (!details || details.skipped === 0 || result.maxScore === null) return result;
  const maxScore = Math.max(result.maxScore - details.skipped, 1);
  return { ...result, maxScore, success: run.exitCode === 0 && result.score >= maxScore };
};
