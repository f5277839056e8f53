import { type EvalProcedure, type RunResult, type Scorer, type Terminal } from '@debug-gym/spec';
import { cleanupPytestOutput } from '@debug-gym/plugin-kit';
import { APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT, evalTestsReport, resolutionStatus } from './grading.js';
import type { SwebenchInstance } from './instance.js';
import { LOG_PARSERS, parserNameFor } from './log-parsers.js';
import { testPatchCreatedFiles, testPatchModifiedFiles } from './test-spec.js';

const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** Put the test files back as they are at the base commit, and remove the ones the test patch creates. */
export function restoreTestsCommand(instance: Pick<SwebenchInstance, 'base_commit' | 'test_patch'>): string | null {
  const modified = testPatchModifiedFiles(instance.test_patch);
  const created = testPatchCreatedFiles(instance.test_patch);
  const commands: string[] = [];
  if (modified.length > 0) commands.push(`git checkout ${instance.base_commit} -- ${modified.map(quote).join(' ')}`);
  if (created.length > 0) commands.push(`rm -f -- ${created.map(quote).join(' ')}`);
  return commands.length > 0 ? commands.join(' && ') : null;
}

const failed = (marker: string, run: RunResult, started: number): RunResult => ({
  ...run,
  exitCode: run.exitCode === 0 ? 1 : run.exitCode,
  output: `${marker}\n${run.output}`,
  durationMs: Date.now() - started,
});

async function restore(terminal: Terminal, command: string | null): Promise<RunResult | null> {
  return command === null ? null : terminal.run(command, { timeoutMs: 60_000 });
}

/**
 * One evaluation, as debug-gym's swebench env does it: restore the test files, apply the hidden test
 * patch (sent on stdin, never written into the sandbox), run the entrypoint, restore the test files
 * again (so the agent never sees the hidden tests). Failures carry the harness's markers.
 */
export function swebenchEvaluation(instance: SwebenchInstance): EvalProcedure {
  const restoreCommand = restoreTestsCommand(instance);
  return async ({ terminal, entrypoint, timeoutMs }) => {
    const started = Date.now();
    const reset = await restore(terminal, restoreCommand);
    if (reset && reset.exitCode !== 0) return failed(RESET_FAILED, reset, started);
    const apply = await terminal.run('git apply -v -', { input: instance.test_patch, timeoutMs: 60_000 });
    if (apply.exitCode !== 0) {
      await restore(terminal, restoreCommand);
      return failed(APPLY_PATCH_FAIL, apply, started);
    }
    const run = await terminal.run(entrypoint, { timeoutMs });
    await restore(terminal, restoreCommand);
    return { ...run, durationMs: Date.now() - started };
  };
}

/**
 * SWE-bench's grading as an env scorer: the test log parsed with the repository's parser; every
 * FAIL_TO_PASS and PASS_TO_PASS test must pass (a missing test fails). Score = FAIL_TO_PASS tests
 * passing while no PASS_TO_PASS test fails (else 0); max = FAIL_TO_PASS count; success = RESOLVED_FULL.
 */
export function swebenchScorer(instance: SwebenchInstance): Scorer {
  const parse = LOG_PARSERS[parserNameFor(instance)];
  const maxScore = Math.max(instance.FAIL_TO_PASS.length, 1);
  return (run) => {
    const output = cleanupPytestOutput(run.output);
    if (run.timedOut) {
      const text = `Command timed out after ${Math.round(run.timeoutMs / 1000)} seconds${output.trim() ? `\nPartial output:\n${output}` : ''}`;
      return { output: text, score: 0, maxScore, success: false, details: { status: 'RESOLVED_NO', reason: TESTS_TIMEOUT } };
    }
    const marker = [APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR].find((code) => run.output.startsWith(code));
    if (marker) return { output, score: 0, maxScore, success: false, details: { status: 'RESOLVED_NO', reason: marker } };
    const map = parse(run.output);
    const tests = evalTestsReport(map, instance);
    const status = resolutionStatus(tests);
    const passToPassHolds = tests.PASS_TO_PASS.failure.length === 0;
    const score = status === 'RESOLVED_FULL' ? maxScore : passToPassHolds ? tests.FAIL_TO_PASS.success.length : 0;
    return { output, score, maxScore, success: status === 'RESOLVED_FULL', details: { status, tests_status: tests, parsedTests: Object.keys(map).length } };
  };
}
