import type { ExpectedTests, PytestSummary, StructuredPytestRun, TestOutcome } from '@debug-gym/spec';


export interface ReportScore {
  score: number;
  maxScore: number | null;
  success: boolean;
  details: PytestSummary;
  /** Sentences for the agent, appended to the output; empty for a normal run. */
  notes: string[];
}

/** The tests a run scored, from its report: never from its output. */
export function scorePytestReport(structured: StructuredPytestRun, exitCode: number | null): ReportScore {
  const { report, expected } = structured;
  const notes: string[] = [];
  if (structured.restored.length > 0) {
    notes.push(`debug-gym restored these protected files (tests, test configuration, read-only files) to their original content before running the tests: ${structured.restored.join(', ')}.`);
  }
  const setAside = report?.finished?.setAside ?? [];
  if (setAside.length > 0) {
    notes.push(`debug-gym set these files aside during the test run (they are not in the original repository and could change how tests are collected, run or reported): ${setAside.join(', ')}. They were put back afterwards.`);
  }
  const expectedCount = expected ? expected.ids.length + expected.modules.length : 0;
  const zero = (maxScore: number | null, problem: string, collectionError = false): ReportScore => ({
    score: 0,
    maxScore,
    success: false,
    details: { ...emptySummary(), collectionError },
    notes: [...notes, problem],
  });
  const finished = report?.finished;
  if (!report || !finished) {
    return zero(
      expected ? Math.max(expectedCount, 1) : null,
      `debug-gym: the test run ended (exit code ${exitCode ?? 'none'}) before pytest reported its results, so it scores 0. Whatever the output above says, the tests did not finish.`,
    );
  }
  if (finished.tampered.length > 0) {
    return zero(expected ? Math.max(expectedCount, 1) : null, `debug-gym detected tampering with the test run, so it scores 0: ${finished.tampered.join('; ')}.`);
  }
  if (exitCode !== finished.exitstatus) {
    return zero(
      expected ? Math.max(expectedCount, 1) : null,
      `debug-gym: pytest finished with exit status ${finished.exitstatus} but its process exited with ${exitCode ?? 'none'}, so the run scores 0.`,
    );
  }
  if (report.collectErrors.length > 0) return { score: 0, maxScore: null, success: false, details: { ...emptySummary(), collectionError: true }, notes };
  const counted = [...report.tests].filter(([id]) => isExpected(id, expected));
  const missing = expected ? [...expected.ids.filter((id) => !report.tests.has(id)), ...expected.modules.filter((module) => !counted.some(([id]) => id.startsWith(`${module}::`)))] : [];
  if (missing.length > 0) notes.push(`These tests of the original repository did not run, so they count as failed: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? `, and ${missing.length - 20} more` : ''}.`);
  const details = summarize(counted.map(([, outcome]) => outcome), missing.length);
  const notPassing = counted.filter(([, outcome]) => outcome === 'failed' || outcome === 'error').map(([id]) => id);
  details.failedTests = [...notPassing, ...missing].sort();
  const maxScore = Math.max(details.total, 1);
  const success = exitCode === 0 && missing.length === 0 && details.passed >= maxScore;
  return { score: details.passed, maxScore, success, details, notes };
}

function isExpected(id: string, expected: ExpectedTests | null): boolean {
  if (!expected) return true;
  return expected.ids.includes(id) || expected.modules.some((module) => id.startsWith(`${module}::`));
}

function summarize(outcomes: TestOutcome[], missing: number): PytestSummary {
  const summary = emptySummary();
  const key = { passed: 'passed', failed: 'failed', error: 'errors', skipped: 'skipped', xfailed: 'xfailed', xpassed: 'xpassed' } as const;
  for (const outcome of outcomes) summary[key[outcome]] += 1;
  summary.failed += missing;
  summary.total = outcomes.length + missing;
  return summary;
}

function emptySummary(): PytestSummary {
  return { passed: 0, failed: 0, errors: 0, skipped: 0, xfailed: 0, xpassed: 0, collected: null, total: 0, collectionError: false, summaryFound: true };
}
