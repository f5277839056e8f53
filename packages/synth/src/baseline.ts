import type { RunnerOutput, SandboxTestRunner } from './test-runner.js';
import { SynthError } from './synth-error.js';

/** The clean repository's test results, twice, and which of its functions each test calls. */
export interface Baseline {
  /** Tests that passed in both runs (ids without whitespace: SWE-smith's log parser reads `\S+`). */
  passing: string[];
  /** Tests whose outcome differed between the two runs (left out of every task). */
  flaky: string[];
  /** Every test the suite ran. */
  total: number;
  /** `file:firstline` of a function → the passing tests that call it. */
  coverage: Map<string, string[]>;
  /** Files with at least one function a passing test calls. */
  coveredFiles: string[];
  /** The slowest of the two runs (a budget for the per-candidate time limits). */
  durationMs: number;
}

/** Test files and other code that is not the library's (never mutated). */
export function isTestFile(path: string): boolean {
  return /(^|\/)(tests?|testing|docs?|examples?|benchmarks?|bench|debian|\.pc)\//.test(path) || /(^|\/)(test_[^/]*|[^/]*_test|conftest|setup|versioneer|_version)\.py$/.test(path);
}

export async function runBaseline(first: SandboxTestRunner, second: SandboxTestRunner, timeoutMs: number): Promise<Baseline> {
  const [traced, plain] = await Promise.all([first.run(null, { coverage: true, timeoutMs }), second.run(null, { timeoutMs })]);
  for (const run of [traced, plain]) {
    if (run.timedOut) throw new SynthError('DG_SYNTH_BASELINE_FAILED', `the clean repository's test suite ran past ${Math.round(timeoutMs / 1000)} s; raise --timeout or pick a smaller project.`);
  }
  const passing: string[] = [];
  const flaky: string[] = [];
  for (const [id, result] of Object.entries(traced.tests)) {
    const again = plain.tests[id];
    if (again?.outcome !== result.outcome) flaky.push(id);
    else if (result.outcome === 'passed' && !/\s/.test(id)) passing.push(id);
  }
  if (passing.length === 0) {
    throw new SynthError('DG_SYNTH_BASELINE_FAILED', `no test of the clean repository passes (${Object.keys(traced.tests).length} ran). Check that \`python -m pytest\` passes in it with the sandbox's interpreter.`);
  }
  return { passing: passing.sort(), flaky: flaky.sort(), total: Object.keys(traced.tests).length, ...coverageOf(traced, new Set(passing)), durationMs: Math.max(traced.durationMs, plain.durationMs) };
}

function coverageOf(run: RunnerOutput, passing: Set<string>): Pick<Baseline, 'coverage' | 'coveredFiles'> {
  const coverage = new Map<string, string[]>();
  const functions = run.coverage?.functions ?? [];
  for (const [test, indexes] of Object.entries(run.coverage?.tests ?? {})) {
    if (!passing.has(test)) continue;
    for (const index of indexes) {
      const [file, line] = functions[index] as [string, number, string];
      const key = `${file}:${line}`;
      if (!coverage.has(key)) coverage.set(key, []);
      (coverage.get(key) as string[]).push(test);
    }
  }
  const coveredFiles = [...new Set([...coverage.keys()].map((key) => key.slice(0, key.lastIndexOf(':'))))].filter((file) => file.endsWith('.py') && !isTestFile(file)).sort();
  return { coverage, coveredFiles };
}
