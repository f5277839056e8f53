import type { SynthCandidate } from '@debug-gym/spec';
import type { Baseline } from './baseline.js';
import { failureSignature, taskFeatures, type TaskFeatures } from './features.js';
import type { SandboxTestRunner, TestResult } from './test-runner.js';
import { applyEdit, applyReverse, unifiedPatch } from './unified-patch.js';

/** Why a candidate was not kept, or `valid`. */
export type CandidateVerdict = 'valid' | 'uncovered' | 'no-test-fails' | 'timeout' | 'flaky' | 'not-restored';

export interface CandidateResult {
  verdict: CandidateVerdict;
  candidate: SynthCandidate;
  patch?: string;
  failToPass?: string[];
  passToPass?: string[];
  features?: TaskFeatures;
  signature?: string;
  /** Test runs spent on it (one forked pytest each). */
  runs: number;
}

export interface ValidationContext {
  baseline: Baseline;
  /** The clean text of each file that may be mutated. */
  sources: Map<string, string>;
  timeoutMs: number;
}

const notPassed = (tests: Record<string, TestResult>, ids: readonly string[]): string[] => ids.filter((id) => tests[id]?.outcome !== 'passed');

/**
 * Validate one candidate in `runner`'s sandbox (whose working copy is clean before and after):
 * 1. the tests that call the mutated function, with the bug: at least one that passed must fail;
 * 2. the whole suite with the bug: FAIL_TO_PASS / PASS_TO_PASS;
 * 3. FAIL_TO_PASS again with the bug: the same tests fail the same way (else flaky);
 * 4. the reverse patch applied to the buggy file gives back the clean file byte for byte, and with it
 *    FAIL_TO_PASS and the covering tests pass, twice.
 */
export async function validateCandidate(candidate: SynthCandidate, runner: SandboxTestRunner, context: ValidationContext): Promise<CandidateResult> {
  const { baseline } = context;
  const covering = candidate.function ? baseline.coverage.get(`${candidate.file}:${candidate.function.line}`) : undefined;
  if (!covering?.length) return { verdict: 'uncovered', candidate, runs: 0 };
  const clean = context.sources.get(candidate.file) as string;
  const buggy = applyEdit(clean, candidate);
  const diff = unifiedPatch(candidate.file, clean, buggy);
  let runs = 0;
  const run = async (tests: readonly string[] | null) => {
    runs += 1;
    return runner.run(tests, { timeoutMs: context.timeoutMs });
  };
  await runner.writeFile(candidate.file, buggy);
  try {
    const first = await run(covering);
    if (first.timedOut) return { verdict: 'timeout', candidate, runs };
    if (notPassed(first.tests, covering).length === 0) return { verdict: 'no-test-fails', candidate, runs };
    const full = await run(null);
    if (full.timedOut) return { verdict: 'timeout', candidate, runs };
    const failToPass = notPassed(full.tests, baseline.passing);
    const passToPass = baseline.passing.filter((id) => full.tests[id]?.outcome === 'passed');
    if (failToPass.length === 0) return { verdict: 'flaky', candidate, runs };
    const failing = Object.fromEntries(failToPass.map((id) => [id, full.tests[id] ?? { outcome: 'error' as const, exception: 'NotRun' }]));
    const again = await run(failToPass);
    if (again.timedOut) return { verdict: 'timeout', candidate, runs };
    const signature = failureSignature(failing);
    if (failureSignature(Object.fromEntries(failToPass.map((id) => [id, again.tests[id] ?? { outcome: 'error' as const, exception: 'NotRun' }]))) !== signature) {
      return { verdict: 'flaky', candidate, runs };
    }
    const restored = applyReverse(diff.patch, buggy);
    if (restored !== clean) return { verdict: 'not-restored', candidate, runs };
    await runner.writeFile(candidate.file, restored);
    const check = [...new Set([...failToPass, ...covering])];
    for (let round = 0; round < 2; round += 1) {
      const fixed = await run(check);
      if (fixed.timedOut) return { verdict: 'timeout', candidate, runs };
      if (notPassed(fixed.tests, check).length > 0) return { verdict: 'not-restored', candidate, runs };
    }
    return { verdict: 'valid', candidate, patch: diff.patch, failToPass, passToPass, features: taskFeatures(candidate, failing, diff), signature, runs };
  } finally {
    await runner.writeFile(candidate.file, clean);
  }
}
