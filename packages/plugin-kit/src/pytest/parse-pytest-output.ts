import type { PytestSummary } from '@debug-gym/spec';


const COUNT_WORDS: Record<string, keyof Omit<PytestSummary, 'collected' | 'total' | 'collectionError' | 'summaryFound' | 'failedTests'>> = {
  passed: 'passed',
  failed: 'failed',
  error: 'errors',
  errors: 'errors',
  skipped: 'skipped',
  xfailed: 'xfailed',
  xpassed: 'xpassed',
};

// The final summary, e.g. "==== 1 failed, 2 passed, 1 warning in 0.12s ====" or "-q" style "1 passed in 0.01s".
const SUMMARY_LINE = /^[=\s]*((?:\d+ \w+(?:, )?)+) in [\d.]+s(?: \([^)]*\))?[=\s]*$/;
const NO_TESTS_LINE = /^[=\s]*no tests ran in [\d.]+s[=\s]*$/;

/** Parse pytest's output (any verbosity). Pure: no I/O. */
export function parsePytestOutput(output: string): PytestSummary {
  const summary: PytestSummary = {
    passed: 0,
    failed: 0,
    errors: 0,
    skipped: 0,
    xfailed: 0,
    xpassed: 0,
    collected: null,
    total: 0,
    collectionError: false,
    summaryFound: false,
  };
  const lines = output.split('\n');
  for (const line of lines) {
    const collected = /\bcollected (\d+) items?\b/.exec(line);
    if (collected) summary.collected = Number(collected[1]);
  }
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = (lines[index] ?? '').trim();
    if (NO_TESTS_LINE.test(line)) {
      summary.summaryFound = true;
      break;
    }
    const match = SUMMARY_LINE.exec(line);
    if (!match) continue;
    summary.summaryFound = true;
    for (const part of (match[1] ?? '').split(',')) {
      const [count, word] = part.trim().split(' ');
      const field = word ? COUNT_WORDS[word] : undefined;
      if (field) summary[field] = Number(count);
    }
    break;
  }
  summary.collectionError =
    /Interrupted: \d+ errors? during collection/.test(output) || /^_+ ERROR collecting .* _+$/m.test(output) || /^ERROR collecting /m.test(output);
  const outcomes = summary.passed + summary.failed + summary.skipped + summary.xfailed + summary.xpassed;
  summary.total = summary.collected ?? outcomes + (summary.collectionError ? 0 : summary.errors);
  return summary;
}

/**
 * The original's pytest output clean-up: drop `platform`/`rootdir`/`plugins`/`cachedir` lines,
 * collapse `====` and `----` rules, blank out unittest's `Ran N tests in Xs` timing line.
 */
export function cleanupPytestOutput(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^(platform |rootdir: |plugins: |cachedir: )/.test(line))
    .map((line) => {
      if (/^Ran \d+ tests? in [\d.]+s$/.test(line.trim())) return '';
      if (/^=+$/.test(line)) return '====';
      if (/^-+$/.test(line)) return '----';
      return line;
    })
    .join('\n');
}
